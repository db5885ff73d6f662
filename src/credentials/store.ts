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

export function profileAccount(profile: string): string {
  return `profile:${profile}`;
}

export function clientAccount(issuer: string, clientId: string): string {
  return `client:${issuer}#${clientId}`;
}
