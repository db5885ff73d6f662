import { type StorageKind, isStorageKind } from '../types/storage.js';

export { type StorageKind, isStorageKind };
export { STORAGE_KINDS } from '../types/storage.js';

/** Where a secret goes when nothing else is asked: the keychain, encrypted by the OS. */
export const PREFERRED_STORAGE: StorageKind = 'keychain';
/** The fallback when the preferred store is unusable, and what --insecure-storage asks for. */
export const PLAIN_STORAGE: StorageKind = 'file';

export interface CredentialStore {
  readonly kind: StorageKind;
  /** A human description of where, for messages (never a secret). */
  readonly location: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

/** Logins keep their secrets in one place; headless CI jobs in another, beside their job state. */
export type CredentialArea = 'login' | 'job';

export type ProbeResult = { ok: true; store: CredentialStore } | { ok: false; reason: string };

export interface CredentialBackend {
  /** The store as it is, without a check: for reading what was stored there. */
  open(area: CredentialArea): Promise<CredentialStore>;
  /** Whether the store can be trusted with a new secret now (a locked keyring cannot). */
  probe(area: CredentialArea): Promise<ProbeResult>;
}

export type CredentialBackends = Record<StorageKind, CredentialBackend>;

/** The service name under which every secret of this CLI is filed in the OS keychain. */
export const KEYCHAIN_SERVICE = 'school-cli';

/**
 * The keychain is shared by every config dir of the user, so the account names the config dir
 * too: two setups (say, SCHOOL_CONFIG_DIR for a second school) never overwrite each other.
 */
export function profileAccount(configDir: string, profile: string): string {
  return `profile:${profile}@${configDir}`;
}

export function clientAccount(issuer: string, clientId: string): string {
  return `client:${issuer}#${clientId}`;
}

export function pendingLoginAccount(configDir: string, profile: string): string {
  return `pending:${profile}@${configDir}`;
}

export function jobAccount(key: string): string {
  return `ci:${key}`;
}
