/** Where secrets live. Non-secret profile data lives in the config file instead. */
export type StorageKind = 'keychain' | 'file';

export interface CredentialStore {
  readonly kind: StorageKind;
  /** A human description of where, for messages (never a secret). */
  readonly location: string;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

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
