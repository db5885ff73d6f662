import type { StorageKind } from '../types/storage.js';
import { type Caches, openCaches } from './caches.js';
import { type ClientRegistry, openClientRegistry } from './client-registry.js';
import type { CredentialArea, CredentialBackends, CredentialStore, ProbeResult } from './credential-store.js';
import { type JobStates, openJobStates } from './job-states.js';
import { withLock } from './lock.js';
import type { Paths } from './paths.js';
import { type PendingLogins, openPendingLogins } from './pending-login-store.js';
import { type ProfileStore, openProfileStore } from './profile-store.js';
import { storeContext } from './store-context.js';

/** What every part shares: where things are, the cross-process lock, and the credential stores themselves. */
interface RepositoryBase {
  readonly paths: Paths;
  /** Runs `fn` while holding a lock shared by every `school` process of this config dir. */
  locked<T>(name: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T>;
  openStore(kind: StorageKind, area?: CredentialArea): Promise<CredentialStore>;
  probeStore(kind: StorageKind, area?: CredentialArea): Promise<ProbeResult>;
}

/**
 * The one owner of everything `school` saves, by concern: profiles and their tokens
 * (profile-store.ts), client registrations (client-registry.ts), pending logins
 * (pending-login-store.ts), headless CI job state (job-states.ts) and caches (caches.ts). Callers
 * never touch a file or a store themselves; a function that needs one concern asks for that part.
 */
export type StateRepository = RepositoryBase & ProfileStore & ClientRegistry & PendingLogins & JobStates & Caches;

export function openStateRepository(deps: { paths: Paths; credentials: CredentialBackends }): StateRepository {
  const ctx = storeContext(deps.paths, deps.credentials);
  return {
    paths: deps.paths,
    locked: (name, signal, fn) => withLock(deps.paths.lockDir, name, signal, fn),
    openStore: ctx.openStore,
    probeStore: ctx.probeStore,
    ...openProfileStore(ctx),
    ...openClientRegistry(ctx),
    ...openPendingLogins(ctx),
    ...openJobStates(ctx),
    ...openCaches(ctx),
  };
}
