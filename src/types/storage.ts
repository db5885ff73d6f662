/**
 * Where secrets live. Non-secret profile data lives in the config file instead. Every kind has a
 * backend in the table of `state/backends.ts`; nothing else tells the kinds apart.
 */
export const STORAGE_KINDS = ['keychain', 'file'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

export function isStorageKind(value: unknown): value is StorageKind {
  return STORAGE_KINDS.some((kind) => kind === value);
}
