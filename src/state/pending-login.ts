import { type AuthMethod, isAuthMethod } from './config-file.js';
import { type StorageKind, isStorageKind } from './credential-store.js';
import { type DpopKey, isDpopKey } from '../types/tokens.js';

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
  /** Why the OS keychain was not used, when the file was chosen without --insecure-storage; said once the tokens are stored. */
  keychainProblem?: string;
  authorizationUrl: string;
  /** Seconds since the epoch after which the login is abandoned. */
  expiresAt: number;
  /** The background process waiting for the redirect (`login --no-wait`), if one is. */
  listenerPid?: number;
  /**
   * A device login (`login --device --no-wait`, RFC 8628): the seconds between polls. The device
   * code is then the secret kept in place of the verifier, and there is no redirect to wait for.
   */
  deviceInterval?: number;
  /**
   * Seconds since the epoch before which the URL must be opened, when that is earlier than
   * `expiresAt`: a pushed request (RFC 9126) the server keeps a short time only.
   */
  openBy?: number;
  /** The key the login's tokens are to be bound to (DPoP): a secret, kept with the verifier. */
  dpopKey?: DpopKey;
  /** The client was registered out of band (`login --client-id`). */
  preRegistered?: boolean;
}

/** The secrets of a pending login, as one credential-store entry: the verifier (or device code) and the DPoP key, as JSON. */
export function pendingSecrets(pending: Pick<PendingLogin, 'codeVerifier' | 'dpopKey'>): string {
  return JSON.stringify({ codeVerifier: pending.codeVerifier, ...(pending.dpopKey ? { dpopKey: pending.dpopKey } : {}) });
}

/**
 * The entry `pendingSecrets` wrote; anything else is unusable. A damaged key makes the whole entry
 * unusable rather than a login whose tokens nobody could use.
 */
export function readPendingSecrets(entry: string): Pick<PendingLogin, 'codeVerifier' | 'dpopKey'> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(entry);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || !('codeVerifier' in parsed) || typeof parsed.codeVerifier !== 'string') return undefined;
  const dpopKey: unknown = 'dpopKey' in parsed ? parsed.dpopKey : undefined;
  if (dpopKey === undefined) return { codeVerifier: parsed.codeVerifier };
  return isDpopKey(dpopKey) ? { codeVerifier: parsed.codeVerifier, dpopKey } : undefined;
}

export type PendingLoginRecord = Omit<PendingLogin, 'codeVerifier' | 'dpopKey'>;

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
    (v.listenerPid === undefined || typeof v.listenerPid === 'number') &&
    Array.isArray(v.scopes) &&
    isStorageKind(v.storage) &&
    isAuthMethod(v.authMethod) &&
    (v.nonce === undefined || typeof v.nonce === 'string') &&
    (v.keychainProblem === undefined || typeof v.keychainProblem === 'string') &&
    (v.deviceInterval === undefined || typeof v.deviceInterval === 'number') &&
    (v.openBy === undefined || typeof v.openBy === 'number') &&
    (v.preRegistered === undefined || typeof v.preRegistered === 'boolean')
  );
}

/**
 * How a background login (`login --no-wait`) ended, kept for `login --wait`: a small record that
 * never holds a secret.
 */
export interface LoginOutcome {
  profile: string;
  status: 'completed' | 'failed' | 'timed_out';
  /** One sentence for the user. */
  message: string;
  /** The error code of a failed login, as `--json` errors name it. */
  error?: string;
  hint?: string;
  baseUrl?: string;
  user?: string;
  scopes?: string[];
  /** What the login's user should know (scopes withheld, a userinfo answer refused), one sentence each. */
  warnings?: string[];
  /** Seconds since the epoch. */
  at: number;
}

export function isLoginOutcome(value: unknown): value is LoginOutcome {
  if (!value || typeof value !== 'object') return false;
  const v: Partial<Record<keyof LoginOutcome, unknown>> = value;
  return (
    typeof v.profile === 'string' &&
    (v.status === 'completed' || v.status === 'failed' || v.status === 'timed_out') &&
    typeof v.message === 'string' &&
    typeof v.at === 'number' &&
    (v.warnings === undefined || (Array.isArray(v.warnings) && v.warnings.every((w) => typeof w === 'string')))
  );
}
