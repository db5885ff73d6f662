import type { CredentialArea, CredentialBackends } from './credential-store.js';
import type { Paths } from './paths.js';

// The one table of credential backends, keyed by storage kind: a third kind of store is one more
// entry here (and its name in STORAGE_KINDS). Each backend module loads only when it is used.

/** The real backends: the OS keychain through keytar, and a 0600 JSON file. */
export function systemBackends(paths: Paths): CredentialBackends {
  const fileFor = async (area: CredentialArea) => {
    const { openFileStore } = await import('./file-store.js');
    return openFileStore(area === 'job' ? paths.jobCredentialsFile : paths.credentialsFile, paths.lockDir);
  };
  return {
    keychain: {
      open: async () => (await import('./keychain.js')).openKeychain(),
      probe: async () => (await import('./keychain.js')).probeKeychain(),
    },
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
