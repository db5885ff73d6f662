import { serverInfoFor } from '../../auth/discover.js';
import { notLoggedIn, resolveSession } from '../../auth/session.js';
import { insufficientScopeError, readChallenge } from '../../auth/challenge.js';
import { describeUser, requestUserInfo } from '../../auth/userinfo.js';
import type { Deps } from '../../deps.js';
import { AuthError, CliError } from '../../errors.js';
import type { GlobalOptions } from '../context.js';
import { terminalSafeJson } from '../../util/printable.js';

export type WhoamiOptions = GlobalOptions;

export async function whoamiRun(deps: Deps, opts: WhoamiOptions): Promise<void> {
  let session = await resolveSession(deps, opts);
  if (!session) throw notLoggedIn(deps, opts);
  const server = await serverInfoFor(deps.http, deps.paths.cacheDir, session.baseUrl, session.issuer, deps.signal);
  let info = await requestUserInfo(deps.http, server.as, session.accessToken, deps.signal);
  // A 401 may just mean the token was revoked or expired early: renew once and try again.
  if (!info.ok && readChallenge(info.status, info.wwwAuthenticate).refresh && session.refresh) {
    session = await session.refresh();
    info = await requestUserInfo(deps.http, server.as, session.accessToken, deps.signal);
  }
  if (!info.ok) {
    const outcome = readChallenge(info.status, info.wwwAuthenticate);
    if (outcome.insufficientScope) throw insufficientScopeError(`The userinfo endpoint answered HTTP ${info.status}`, session, outcome.insufficientScope);
    if (info.status === 401 || info.status === 403) {
      throw new AuthError(`The server rejected the access token (${info.error ?? `HTTP ${info.status}`}).`, {
        code: 'token_rejected',
        hint: session.source === 'env' ? 'Check the token in the environment.' : 'Run `school login`.',
      });
    }
    if (info.error === 'no_userinfo_endpoint') throw new CliError('The authorization server has no userinfo endpoint.', { code: 'unsupported' });
    throw new CliError(`The userinfo endpoint failed (HTTP ${info.status}).`, { code: 'userinfo_failed' });
  }
  if (opts.json) deps.io.out.write(`${terminalSafeJson(info.claims, 2)}\n`);
  else deps.io.out.write(`${describeUser(info.claims)}\n`);
}
