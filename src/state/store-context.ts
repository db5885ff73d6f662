import { readFileIfExists } from './atomic.js';
import type { CredentialArea, CredentialBackends, CredentialStore, ProbeResult } from './credential-store.js';
import { checkPrivatePaths } from './permissions.js';
import type { Paths } from './paths.js';
import type { StorageKind } from '../types/storage.js';

/** What every part of the repository shares: where the files are, the credential backends, and a checked read. */
export interface StoreContext {
  paths: Paths;
  openStore(kind: StorageKind, area?: CredentialArea): Promise<CredentialStore>;
  probeStore(kind: StorageKind, area?: CredentialArea): Promise<ProbeResult>;
  /** A file of ours, read only once its dirs passed the ownership and mode checks; undefined when absent or unreadable. */
  readOwnFile(file: string): Promise<string | undefined>;
  /** The ownership and mode checks alone, for a reader that reads part of a file. */
  checkOwnDirs(): Promise<void>;
}

export function storeContext(paths: Paths, credentials: CredentialBackends): StoreContext {
  return {
    paths,
    openStore: (kind, area = 'login') => credentials[kind].open(area),
    probeStore: (kind, area = 'login') => credentials[kind].probe(area),
    // A refusal of the checks is an error, not a cache miss.
    async readOwnFile(file) {
      await checkPrivatePaths(paths);
      return readFileIfExists(file).catch(() => undefined);
    },
    checkOwnDirs: () => checkPrivatePaths(paths),
  };
}

export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a damaged cache or state file is just a miss
  }
}
