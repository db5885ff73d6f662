import type { Deps } from '../deps.js';
import { CliError } from '../errors.js';
import { fileProtection } from '../platform/file-protection.js';
import { type CredentialStore, PLAIN_STORAGE, PREFERRED_STORAGE } from '../state/credential-store.js';

async function plainStore(deps: Pick<Deps, 'state'>): Promise<CredentialStore> {
  const probe = await deps.state.probeStore(PLAIN_STORAGE);
  if (!probe.ok) throw new CliError(`No usable place to store credentials: ${probe.reason}.`, { code: 'no_credential_store' });
  return probe.store;
}

/** Chooses where a login's secrets go: the preferred store when it proves usable, else the 0600 file, said plainly. */
export async function chooseStore(deps: Pick<Deps, 'state'> & Partial<Pick<Deps, 'platform'>>, insecure: boolean, notify: (text: string) => void): Promise<CredentialStore> {
  if (insecure) {
    const store = await plainStore(deps);
    notify(`Storing credentials in plain text at ${store.location} (--insecure-storage).\n`);
    return store;
  }
  const preferred = await deps.state.probeStore(PREFERRED_STORAGE);
  if (preferred.ok) return preferred.store;
  const store = await plainStore(deps);
  notify(`Warning: no usable OS keychain (${preferred.reason}).\nStoring credentials in plain text at ${store.location}, ${fileProtection(deps.platform ?? process.platform)}.\n`);
  return store;
}
