import type { Deps } from '../../deps.js';
import { CliError } from '../../errors.js';
import { readChallenge } from '../../oauth/challenge.js';
import type { ServerInfo } from '../../oauth/discover.js';
import { introspectOwnToken } from '../../oauth/introspect.js';
import { requestUserInfo } from '../../oauth/userinfo.js';
import type { GlobalOptions } from '../../options.js';
import { serverFor } from '../../session/server.js';
import { type Session, notLoggedIn, resolveSession } from '../../session/session.js';
import { insufficientScopeError, tokenRejected } from '../../session/step-up.js';
import type { IdentitySource } from '../../state/config-file.js';
import { describeUser } from '../../ui/user.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { defineCommand, globalOptions } from '../command.js';

export type WhoamiOptions = GlobalOptions;

// A token from SCHOOL_TOKEN comes without its client; the id only serves to check a signed
// userinfo answer's audience, which such a token cannot be checked against anyway.
const UNKNOWN_CLIENT = 'school-cli';

interface Identity {
  claims: Record<string, unknown>;
  /** Where the claims came from; undefined when nothing is known of the token's subject. */
  source?: IdentitySource;
}

const SOURCE_NOTE: Record<IdentitySource, string> = {
  userinfo: 'Identity from the userinfo endpoint.',
  id_token: 'Identity from the ID token received at login (no userinfo endpoint to ask).',
  introspection: "Identity from token introspection: the access token's subject (no userinfo answer and no ID token).",
};

/** The userinfo answer; undefined when the endpoint wants a scope the server does not even offer (a plain OAuth 2.0 grant). */
async function fromUserInfo(deps: Deps, server: ServerInfo, first: Session): Promise<Identity | undefined> {
  let session = first;
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
    const offered = server.as.scopes_supported;
    const missing = outcome.insufficientScope;
    // Only a scope the user could log in with is worth a step-up hint; otherwise userinfo is simply not for this grant.
    if (missing && offered && !missing.every((s) => offered.includes(s))) return undefined;
    if (missing) throw insufficientScopeError(`The userinfo endpoint answered HTTP ${info.status}`, session, missing);
    if (info.status === 401 || info.status === 403) throw tokenRejected(`The server rejected the access token (${outcome.error ?? info.error ?? `HTTP ${info.status}`}).`, session);
    throw new CliError(`The userinfo endpoint failed (HTTP ${info.status}${info.error ? `, ${info.error}` : ''}).`, { code: 'userinfo_failed' });
  }
  return { claims: info.claims, source: 'userinfo' };
}

/** What introspection says of the token's subject; a token it calls inactive is renewed once, then refused. */
async function fromIntrospection(deps: Deps, server: ServerInfo, first: Session): Promise<Identity | undefined> {
  let session = first;
  if (!session.client) return undefined;
  const ask = (s: Session) => (s.client ? introspectOwnToken(deps.http, server.as, s.client, { accessToken: s.accessToken, signal: deps.signal }) : Promise.resolve(undefined));
  let answer = await ask(session).catch(() => undefined);
  if (answer && !answer.active && session.refresh) {
    session = await session.refresh();
    answer = await ask(session).catch(() => undefined);
  }
  if (answer && !answer.active) throw tokenRejected('The server says the access token is no longer active.', session);
  if (!answer?.sub && !answer?.username) return undefined;
  return { claims: { sub: answer.sub, preferred_username: answer.username }, source: 'introspection' };
}

/**
 * Who is logged in: the userinfo endpoint where the server has one; else the ID token's claims
 * from login; else what introspection (or, failing that, the login) learned of the token's subject.
 */
export async function identify(deps: Deps, session: Session): Promise<Identity> {
  const server = await serverFor(deps, session.baseUrl, session.issuer);
  if (server.as.userinfo_endpoint) {
    const info = await fromUserInfo(deps, server, session);
    if (info) return info;
  }
  // What login learned belongs to the login's tokens, not to a token from the environment.
  const profile = session.source === 'env' ? undefined : await deps.state.profile(session.profile);
  if (profile?.idClaims) return { claims: profile.idClaims, source: 'id_token' };
  const introspected = await fromIntrospection(deps, server, session);
  if (introspected) return introspected;
  if (profile?.user && profile.userSource) return { claims: { ...profile.user }, source: profile.userSource };
  return { claims: {} };
}

/** "Ada Lovelace ada@example.edu" from userinfo or the ID token; the subject too where only it is known. */
function describe(identity: Identity): string {
  const { claims } = identity;
  if (identity.source !== 'introspection') return describeUser(claims);
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  const name = typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  return printable(name && sub ? `${name} (${sub})` : (name ?? sub ?? ''));
}

async function run(deps: Deps, opts: WhoamiOptions): Promise<void> {
  const session = await resolveSession(deps, opts, { notify: (text) => deps.io.err.write(text) });
  if (!session) throw await notLoggedIn(deps, opts);
  const identity = await identify(deps, session);
  // stdout is the identity alone (with --json, the claims object as the server gave it); where it
  // came from is a note on stderr, so no field of ours can collide with a claim.
  if (opts.json) deps.io.out.write(`${terminalSafeJson(identity.claims, 2)}\n`);
  else if (identity.source) deps.io.out.write(`${describe(identity)}\n`);
  deps.io.err.write(
    identity.source
      ? `${SOURCE_NOTE[identity.source]}\n`
      : `Logged in on ${printable(session.baseUrl)}, but the token's subject is not known: the server has no userinfo endpoint, sent no ID token and does not introspect the token for this client.\n`,
  );
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
