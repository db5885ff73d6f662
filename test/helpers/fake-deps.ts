import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserOpener } from '../../src/browser.js';
import { resolvePaths } from '../../src/config/paths.js';
import { openFileStore } from '../../src/credentials/file.js';
import type { CredentialStore } from '../../src/credentials/store.js';
import type { Deps, Env } from '../../src/deps.js';
import { createHttpClient, type HttpClient } from '../../src/http/client.js';
import { type TestIO, testIO } from '../../src/iostreams.js';

/** An in-memory keychain; `locked` makes it behave like a locked Secret Service keyring. */
export function memoryKeychain(options: { locked?: boolean } = {}): CredentialStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    kind: 'keychain',
    location: 'the OS keychain',
    entries,
    async get(account) {
      return options.locked ? null : (entries.get(account) ?? null);
    },
    async set(account, secret) {
      if (options.locked) throw new Error('The OS keychain failed: keyring is locked.');
      entries.set(account, secret);
    },
    async delete(account) {
      return entries.delete(account);
    },
  };
}

export interface FakeDeps extends Deps {
  io: TestIO;
  opened: string[];
  keychainStore: ReturnType<typeof memoryKeychain>;
  setNow(ms: number): void;
}

export function fakeDeps(options: { env?: Env; keychain?: 'ok' | 'missing' | 'locked'; http?: HttpClient; tty?: boolean; browser?: BrowserOpener; now?: number } = {}): FakeDeps {
  const home = mkdtempSync(join(tmpdir(), 'school-test-'));
  const env: Env = { HOME: home, SCHOOL_CONFIG_DIR: join(home, 'config'), ...(options.env ?? {}) };
  const paths = resolvePaths(env, home);
  const io = testIO({ tty: options.tty });
  const keychainStore = memoryKeychain({ locked: options.keychain === 'locked' });
  const opened: string[] = [];
  let now = options.now ?? Date.now();
  const controller = new AbortController();
  return {
    io,
    env,
    clock: { now: () => now },
    setNow: (ms) => (now = ms),
    http: options.http ?? createHttpClient({ env }),
    browser: options.browser ?? {
      async open(url) {
        opened.push(url);
        return { opened: true };
      },
    },
    opened,
    keychainStore,
    credentials: {
      keychain: async () => {
        if (options.keychain === 'missing') throw new Error('The OS keychain failed: Cannot autolaunch D-Bus without X11 $DISPLAY.');
        return keychainStore;
      },
      probeKeychain: async () =>
        options.keychain === 'missing' || options.keychain === 'locked'
          ? { ok: false as const, reason: options.keychain === 'missing' ? 'Cannot autolaunch D-Bus without X11 $DISPLAY' : 'the keychain is locked' }
          : { ok: true as const, store: keychainStore },
      file: () => openFileStore(paths.credentialsFile, paths.lockDir),
    },
    paths,
    signal: controller.signal,
    verbose: false,
  };
}
