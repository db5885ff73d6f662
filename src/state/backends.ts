import type { CredentialArea, CredentialBackend, CredentialBackends } from './credential-store.js';
import type { Paths } from './paths.js';

// The one table of credential backends, keyed by storage kind: a third kind of store is one more
// entry here (and its name in STORAGE_KINDS). Each backend module loads only when it is used.

/**
 * The real backends: the OS keychain through keytar, and a 0600 JSON file. On Windows the
 * keychain's secrets are split into parts Credential Manager can hold (see chunked-store.ts).
 */
export function systemBackends(paths: Paths, platform: NodeJS.Platform = process.platform): CredentialBackends {
  const fileFor = async (area: CredentialArea) => {
    const { openFileStore } = await import('./file-store.js');
    return openFileStore(area === 'job' ? paths.jobCredentialsFile : paths.credentialsFile, paths.lockDir);
  };
  return {
    keychain: keychainFor(platform, {
      open: async () => (await import('./keychain.js')).openKeychain(),
      probe: async () => (await import('./keychain.js')).probeKeychain(),
    }),
    file: {
      open: fileFor,
      async probe(area) {
        const store = await fileFor(area);
        // A damaged file is reported now (it throws), before anything is stored in it for nothing.
        await store.get('probe');
        return { ok: true, store };
      },
    },
  };
}

/** The keychain backend as used on `platform`: on Windows, every store it gives splits large secrets. */
export function keychainFor(platform: NodeJS.Platform, keychain: CredentialBackend): CredentialBackend {
  if (platform !== 'win32') return keychain;
  const split = async () => (await import('./chunked-store.js')).chunkedStore;
  return {
    open: async (area) => (await split())(await keychain.open(area)),
    async probe(area) {
      const probed = await keychain.probe(area);
      return probed.ok ? { ok: true, store: (await split())(probed.store) } : probed;
    },
  };
}
