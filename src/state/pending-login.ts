import { type AuthMethod, isAuthMethod } from './config-file.js';
import { type StorageKind, isStorageKind } from './credential-store.js';

/**
 * A login prepared but not completed: everything needed to finish it from the redirect URL, in
 * this process or another one. The PKCE verifier is a secret and lives in the credential store;
 * the rest is kept in a file of its own under the state dir.
 */
export interface PendingLogin {
  profile: string;
  baseUrl: string;
  issuer: string;
  resource?: string;
  clientId: string;
  authMethod: AuthMethod;
  redirectUri: string;
  state: string;
  codeVerifier: string;
  /** The OpenID Connect nonce sent with `openid`, which the ID token must carry back. */
  nonce?: string;
  scopes: string[];
  /** Where the tokens (and the verifier meanwhile) are stored. */
  storage: StorageKind;
  authorizationUrl: string;
  /** Seconds since the epoch after which the login is abandoned. */
  expiresAt: number;
}

export type PendingLoginRecord = Omit<PendingLogin, 'codeVerifier'>;

export function isPendingLoginRecord(value: unknown): value is PendingLoginRecord {
  if (!value || typeof value !== 'object') return false;
  const v: Partial<Record<keyof PendingLoginRecord, unknown>> = value;
  return (
    typeof v.profile === 'string' &&
    typeof v.baseUrl === 'string' &&
    typeof v.issuer === 'string' &&
    typeof v.clientId === 'string' &&
    typeof v.redirectUri === 'string' &&
    typeof v.state === 'string' &&
    typeof v.authorizationUrl === 'string' &&
    typeof v.expiresAt === 'number' &&
    Array.isArray(v.scopes) &&
    isStorageKind(v.storage) &&
    isAuthMethod(v.authMethod) &&
    (v.nonce === undefined || typeof v.nonce === 'string')
  );
}
