import type { Deps } from '../deps.js';
import { CliError } from '../errors.js';
import { fileProtection } from '../platform/file-protection.js';
import { type CredentialStore, PLAIN_STORAGE, PREFERRED_STORAGE } from '../state/credential-store.js';
import { type KeychainCause, keychainCause } from '../state/keychain-cause.js';

/** The causes that lie in the installation (the module, or the library it links to), not in the session. */
const MODULE_CAUSES: ReadonlySet<KeychainCause> = new Set(['module_missing', 'module_unbuilt', 'module_other_node', 'libsecret_missing']);

async function plainStore(deps: Pick<Deps, 'state'>): Promise<CredentialStore> {
  const probe = await deps.state.probeStore(PLAIN_STORAGE);
  if (!probe.ok) throw new CliError(`No usable place to store credentials: ${probe.reason}.`, { code: 'no_credential_store' });
  return probe.store;
}

export interface StoreChoice {
  store: CredentialStore;
  /** Why the preferred store (the OS keychain) was not used, when it was not and nobody asked for the file. */
  keychainProblem?: string;
}

/**
 * Chooses where a login's secrets go: the preferred store when it proves usable, else the 0600
 * file. Nothing is said yet: the login says where its secrets went once they are stored
 * (`storageNotice`), so that a login that stores nothing raises no alarm.
 */
export async function chooseStore(deps: Pick<Deps, 'state'>, insecure: boolean): Promise<StoreChoice> {
  if (insecure) return { store: await plainStore(deps) };
  const preferred = await deps.state.probeStore(PREFERRED_STORAGE);
  if (preferred.ok) return { store: preferred.store };
  return { store: await plainStore(deps), keychainProblem: preferred.reason };
}

/**
 * Where a completed login's secrets went, when that is a plain-text file: said after the fact, in
 * words a person understands; the system's own reason (a D-Bus error…) only with --verbose.
 */
export function storageNotice(location: string, keychainProblem: string | undefined, verbose: boolean, platform: NodeJS.Platform): string {
  const where = `in plain text at ${location}, ${fileProtection(platform)}`;
  if (keychainProblem === undefined) return `The credentials are stored ${where}, as --insecure-storage asked.`;
  // The keychain module itself missing is said at once, in words: npm drops it without a word when it
  // cannot build it, and this is the first time anyone hears of it.
  if (MODULE_CAUSES.has(keychainCause(keychainProblem))) {
    const problem = `${keychainProblem.charAt(0).toUpperCase()}${keychainProblem.slice(1)}`;
    return `${problem}, so the credentials are stored ${where}. \`school doctor\` says why, and how to build it.`;
  }
  const why = verbose ? ` (${keychainProblem})` : '';
  return `No OS keychain could be used${why}, so the credentials are stored ${where}. \`school doctor\` says why.`;
}
