import type { Deps } from '../deps.js';
import { CliError } from '../errors.js';
import { readChallenge } from '../oauth/challenge.js';
import { introspectOwnToken } from '../oauth/introspect.js';
import { type UserInfoResult, requestUserInfo } from '../oauth/userinfo.js';
import type { IdentitySource, Profile } from '../types/profile.js';
import type { ServerInfo } from '../types/server.js';
import { retryAfterRefresh } from './retry-after-refresh.js';
import { insufficientScopeError, tokenRejected } from './step-up.js';
import type { Session } from './usable-session.js';

// A token from SCHOOL_TOKEN comes without its client; the id only serves to check a signed
// userinfo answer's audience, which such a token cannot be checked against anyway.
const UNKNOWN_CLIENT = 'school-cli';

export interface Identity {
  claims: Record<string, unknown>;
  /** Where the claims came from; undefined when nothing is known of the token's subject. */
  source?: IdentitySource;
  /** What the person should know (an answer that could not be used), one sentence each. */
  warnings: string[];
}

/** What is already known of the user, from login: the ID token's claims, and who it found. */
export type KnownIdentity = Pick<Profile, 'idClaims' | 'user' | 'userSource'>;

/**
 * How a failure to learn the identity counts:
 * - `login`: the login itself succeeded, so not knowing is no failure (a userinfo answer of another
 *   subject is a warning, every other failure a silent miss);
 * - `whoami`: asked for, so a refused token or a missing scope is an error, after one refresh.
 */
export type IdentityMode = 'login' | 'whoami';

// Claims about the token rather than the user; the nonce is kept out of the saved claims too.
const PROTOCOL_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'nonce', 'at_hash', 'c_hash', 's_hash', 'azp', 'auth_time', 'acr', 'amr', 'sid']);

/** The ID token's claims about the user, for `whoami` where the server has no userinfo endpoint. */
export function identityClaims(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([k]) => !PROTOCOL_CLAIMS.has(k)));
}

/** The userinfo answer; undefined when the endpoint cannot tell (or, at login, did not). */
async function fromUserInfo(deps: Deps, server: ServerInfo, first: Session, mode: IdentityMode, warnings: string[]): Promise<Identity | undefined> {
  const ask = (s: Session) =>
    requestUserInfo(deps.http, server.as, { clientId: s.clientId ?? UNKNOWN_CLIENT, accessToken: s.accessToken, expectedSubject: s.subject, signal: deps.signal, dpopKey: s.dpopKey });
  let asked: { answer: UserInfoResult; session: Session };
  try {
    // A 401 may just mean the token was revoked or expired early: renew once and try again.
    asked = await retryAfterRefresh(first, ask, (info) => !info.ok && readChallenge(info.status, info.challenges).refresh);
  } catch (err) {
    if (mode === 'whoami') throw err;
    if (err instanceof CliError && err.code === 'subject_mismatch') warnings.push(`${err.message} The ID token's identity is used instead.`);
    return undefined;
  }
  const { answer: info, session } = asked;
  if (info.ok) return { claims: info.claims, source: 'userinfo', warnings };
  if (mode === 'login') return undefined;
  const outcome = readChallenge(info.status, info.challenges);
  const offered = server.as.scopes_supported;
  const missing = outcome.insufficientScope;
  // Only a scope the user could log in with is worth a step-up hint; otherwise userinfo is simply not for this grant.
  if (missing && offered && !missing.every((s) => offered.includes(s))) return undefined;
  if (missing) throw insufficientScopeError(`The userinfo endpoint answered HTTP ${info.status}`, session, missing);
  if (info.status === 401 || info.status === 403) throw tokenRejected(`The server rejected the access token (${outcome.error ?? info.error ?? `HTTP ${info.status}`}).`, session);
  throw new CliError(`The userinfo endpoint failed (HTTP ${info.status}${info.error ? `, ${info.error}` : ''}).`, { code: 'userinfo_failed' });
}

/** What introspection says of the token's subject; for `whoami`, a token it calls inactive is renewed once, then refused. */
async function fromIntrospection(deps: Deps, server: ServerInfo, first: Session, mode: IdentityMode, warnings: string[]): Promise<Identity | undefined> {
  if (!first.client) return undefined;
  const ask = (s: Session) => (s.client ? introspectOwnToken(deps.http, server.as, s.client, { accessToken: s.accessToken, signal: deps.signal }).catch(() => undefined) : Promise.resolve(undefined));
  const { answer, session } = await retryAfterRefresh(first, ask, (a) => mode === 'whoami' && a !== undefined && !a.active);
  if (answer && !answer.active) {
    if (mode === 'whoami') throw tokenRejected('The server says the access token is no longer active.', session);
    return undefined;
  }
  if (!answer?.sub && !answer?.username) return undefined;
  return { claims: { sub: answer.sub, preferred_username: answer.username }, source: 'introspection', warnings };
}

/**
 * Who the token belongs to, the one lookup of login and `whoami`: the userinfo endpoint where the
 * server has one (its `sub` checked against the ID token's); else the ID token's claims from login;
 * else what introspection says of the token's subject; else what login learned.
 */
export async function lookUpIdentity(deps: Deps, server: ServerInfo, session: Session, known: KnownIdentity | undefined, mode: IdentityMode): Promise<Identity> {
  const warnings: string[] = [];
  if (server.as.userinfo_endpoint) {
    const info = await fromUserInfo(deps, server, session, mode, warnings);
    if (info) return info;
  }
  if (known?.idClaims) return { claims: known.idClaims, source: 'id_token', warnings };
  const introspected = await fromIntrospection(deps, server, session, mode, warnings);
  if (introspected) return introspected;
  if (known?.user && known.userSource) return { claims: { ...known.user }, source: known.userSource, warnings };
  return { claims: {}, warnings };
}
