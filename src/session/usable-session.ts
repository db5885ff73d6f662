import { type ClientIdentity, clientOf } from '../oauth/client.js';
import type { Profile } from '../types/profile.js';
import { type DpopKey, type TokenSet, isDpopBound } from '../types/tokens.js';

/** Where the secrets of a session come from. */
export type SecretSource = Profile['storage'] | 'env';

/** The DPoP nonces of origins, kept between processes so that a new one need not be asked for each time. */
export interface DpopNonceMemory {
  recall(origin: string): Promise<string | undefined>;
  remember(origin: string, nonce: string): Promise<void>;
}

/** A usable access token and what it may be used for. */
export interface Session {
  profile: string;
  baseUrl: string;
  issuer?: string;
  clientId?: string;
  /** The client the token was issued to, with its secret when confidential (for introspection). */
  client?: ClientIdentity;
  /** The ID token's `sub` from login, when there was one. */
  subject?: string;
  accessToken: string;
  tokenType: string;
  /** The key the token is bound to (DPoP): every request with the token carries a proof of it. */
  dpopKey?: DpopKey;
  /** Where the API's DPoP nonces are remembered between processes (a profile's session only). */
  dpopNonces?: DpopNonceMemory;
  expiresAt?: number;
  /** When the access token was obtained (seconds since the epoch), for how early to renew it. */
  obtainedAt?: number;
  scope?: string;
  source: SecretSource;
  /** Set when the token can be renewed: refresh now, regardless of expiry (after a 401). */
  refresh?: () => Promise<Session>;
  /**
   * Set when the token can be renewed: the session again, refreshed under the lock when its token
   * would not last `minTtlSeconds` more (or as another process refreshed it meanwhile). For
   * front-ends that keep a session open (the library, `school mcp`).
   */
  renew?: (minTtlSeconds: number) => Promise<Session>;
}

export function sessionFrom(
  set: TokenSet,
  base: Pick<Session, 'profile' | 'baseUrl' | 'source' | 'dpopNonces'>,
  refresh?: () => Promise<Session>,
  renew?: (minTtlSeconds: number) => Promise<Session>,
): Session {
  return {
    ...base,
    issuer: set.issuer,
    clientId: set.clientId,
    client: clientOf(set),
    subject: set.subject,
    accessToken: set.accessToken,
    tokenType: set.tokenType,
    dpopKey: isDpopBound(set) ? set.dpopKey : undefined,
    expiresAt: set.expiresAt,
    obtainedAt: set.obtainedAt,
    scope: set.scope,
    refresh,
    renew,
  };
}
