import type { BrowserOpener } from './browser.js';
import type { Paths } from './config/paths.js';
import type { CredentialStore, StorageKind } from './credentials/store.js';
import type { HttpClient } from './http/client.js';
import type { IOStreams } from './iostreams.js';

export type Env = Record<string, string | undefined>;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface CredentialBackends {
  /** The OS keychain, without a probe: for reading what a login stored there. */
  keychain(): Promise<CredentialStore>;
  /** Write-read-delete check before trusting the keychain with a new secret. */
  probeKeychain(): Promise<{ ok: true; store: CredentialStore } | { ok: false; reason: string }>;
  file(): CredentialStore;
}

/** Everything a command touches from the outside world, so tests can hand in fakes. */
export interface Deps {
  io: IOStreams;
  env: Env;
  clock: Clock;
  http: HttpClient;
  browser: BrowserOpener;
  credentials: CredentialBackends;
  paths: Paths;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  verbose: boolean;
}

export async function openStore(deps: Deps, kind: StorageKind): Promise<CredentialStore> {
  return kind === 'keychain' ? deps.credentials.keychain() : deps.credentials.file();
}

/** The keychain when it proves usable (write, read back, delete), else the given file store and why. */
export async function keychainOr(deps: Deps, fallback: CredentialStore): Promise<{ store: CredentialStore; reason?: string }> {
  const probe = await deps.credentials.probeKeychain();
  return probe.ok ? { store: probe.store } : { store: fallback, reason: probe.reason };
}

export function nowSeconds(deps: Pick<Deps, 'clock'>): number {
  return Math.floor(deps.clock.now() / 1000);
}
