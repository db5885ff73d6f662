import type { Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import { readChallenge } from '../../oauth/challenge.js';
import { requestUserInfo } from '../../oauth/userinfo.js';
import type { GlobalOptions } from '../../options.js';
import { serverFor } from '../../session/server.js';
import { type Session, notLoggedIn, resolveSession } from '../../session/session.js';
import { insufficientScopeError, tokenRejected } from '../../session/step-up.js';
import { describeUser } from '../../ui/user.js';
import { terminalSafeJson } from '../../util/printable.js';
import { defineCommand, globalOptions } from '../command.js';

export type WhoamiOptions = GlobalOptions;

// A token from SCHOOL_TOKEN comes without its client; the id only serves to check a signed
// userinfo answer's audience, which such a token cannot be checked against anyway.
const UNKNOWN_CLIENT = 'school-cli';

async function run(deps: Deps, opts: WhoamiOptions): Promise<void> {
  let session = await resolveSession(deps, opts, { notify: (text) => deps.io.err.write(text) });
  if (!session) throw await notLoggedIn(deps, opts);
  const server = await serverFor(deps, session.baseUrl, session.issuer);
  if (!server.as.userinfo_endpoint) throw new CliError('The authorization server has no userinfo endpoint.', { code: 'unsupported' });
  const ask = (s: Session) =>
    requestUserInfo(deps.http, server.as, { clientId: s.clientId ?? UNKNOWN_CLIENT, accessToken: s.accessToken, expectedSubject: s.subject, signal: deps.signal });
  let info = await ask(session);
  // A 401 may just mean the token was revoked or expired early: renew once and try again.
  if (!info.ok && readChallenge(info.status, info.challenges).refresh && session.refresh) {
    session = await session.refresh();
    info = await ask(session);
  }
  if (!info.ok) {
    const outcome = readChallenge(info.status, info.challenges);
    if (outcome.insufficientScope) throw insufficientScopeError(`The userinfo endpoint answered HTTP ${info.status}`, session, outcome.insufficientScope);
    if (info.status === 401 || info.status === 403) throw tokenRejected(`The server rejected the access token (${outcome.error ?? info.error ?? `HTTP ${info.status}`}).`, session);
    throw new CliError(`The userinfo endpoint failed (HTTP ${info.status}).`, { code: 'userinfo_failed' });
  }
  if (opts.json) deps.io.out.write(`${terminalSafeJson(info.claims, 2)}\n`);
  else deps.io.out.write(`${describeUser(info.claims)}\n`);
}

export const whoamiCommand = defineCommand<WhoamiOptions>({
  name: 'whoami',
  description: 'show who is logged in',
  examples: `
Examples:
  school whoami
  school whoami --json --profile work`,
  configure: () => undefined,
  toOptions: globalOptions,
  run,
});
