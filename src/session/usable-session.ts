import { type ClientIdentity, clientOf } from '../oauth/client.js';
import type { Profile } from '../state/config-file.js';
import type { TokenSet } from '../state/token-set.js';

/** Where the secrets of a session come from. */
export type SecretSource = Profile['storage'] | 'env';

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
  expiresAt?: number;
  scope?: string;
  source: SecretSource;
  /** Set when the token can be renewed: refresh now, regardless of expiry (after a 401). */
  refresh?: () => Promise<Session>;
}

export function sessionFrom(set: TokenSet, base: Pick<Session, 'profile' | 'baseUrl' | 'source'>, refresh?: () => Promise<Session>): Session {
  return {
    ...base,
    issuer: set.issuer,
    clientId: set.clientId,
    client: clientOf(set),
    subject: set.subject,
    accessToken: set.accessToken,
    tokenType: set.tokenType,
    expiresAt: set.expiresAt,
    scope: set.scope,
    refresh,
  };
}
