import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deps } from '../../src/deps.js';
import { createHttpClient, type HttpClient } from '../../src/http/client.js';
import type { BrowserOpener } from '../../src/login/browser.js';
import type { Env } from '../../src/options.js';
import { keychainFor } from '../../src/state/backends.js';
import type { CredentialBackends, CredentialStore } from '../../src/state/credential-store.js';
import { openFileStore } from '../../src/state/file-store.js';
import { MODULE_MISSING, MODULE_UNBUILT } from '../../src/state/keychain-cause.js';
import { resolvePaths } from '../../src/state/paths.js';
import { openStateRepository } from '../../src/state/repository.js';
import { type TestIO, testIO } from './test-io.js';

/**
 * An in-memory keychain; `locked` makes it behave like a locked Secret Service keyring, and
 * `limitBytes` like Windows Credential Manager, which refuses a secret over 2560 bytes.
 */
export function memoryKeychain(options: { locked?: boolean; limitBytes?: number } = {}): CredentialStore & { entries: Map<string, string> } {
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
      if (options.limitBytes !== undefined && Buffer.byteLength(secret) > options.limitBytes) {
        throw new Error('The OS keychain failed: The stub received bad data.');
      }
      entries.set(account, secret);
    },
    async delete(account) {
      return entries.delete(account);
    },
  };
}

/**
 * The keychain as a test wants it: usable, unreachable (no D-Bus session), locked, or its module
 * not installed, installed unbuilt, or built without the libsecret it links to.
 */
export type KeychainCondition = 'ok' | 'missing' | 'locked' | 'no-module' | 'unbuilt-module' | 'no-libsecret';

/** Why the keychain cannot be used, as the real probe says it in each condition. */
const KEYCHAIN_REASONS: Record<Exclude<KeychainCondition, 'ok'>, string> = {
  missing: 'Cannot autolaunch D-Bus without X11 $DISPLAY',
  locked: 'the keychain is locked',
  'no-module': MODULE_MISSING,
  'unbuilt-module': MODULE_UNBUILT,
  'no-libsecret': 'the keychain module could not be loaded (libsecret-1.so.0: cannot open shared object file: No such file or directory)',
};

/** The backends table with the in-memory keychain and real files in a temporary folder. */
export function fakeBackends(
  paths: ReturnType<typeof resolvePaths>,
  keychain: ReturnType<typeof memoryKeychain>,
  condition: KeychainCondition = 'ok',
  platform: NodeJS.Platform = 'linux',
): CredentialBackends {
  const file = (area: 'login' | 'job') => openFileStore(area === 'job' ? paths.jobCredentialsFile : paths.credentialsFile, paths.lockDir);
  return {
    keychain: keychainFor(platform, {
      open: async () => {
        if (condition !== 'ok' && condition !== 'locked') throw new Error(`The OS keychain failed: ${KEYCHAIN_REASONS[condition]}.`);
        return keychain;
      },
      probe: async () => (condition === 'ok' ? { ok: true, store: keychain } : { ok: false, reason: KEYCHAIN_REASONS[condition] }),
    }),
    file: {
      open: async (area) => file(area),
      probe: async (area) => {
        const store = file(area);
        await store.get('probe');
        return { ok: true, store };
      },
    },
  };
}

export interface FakeDeps extends Deps {
  io: TestIO;
  opened: string[];
  keychainStore: ReturnType<typeof memoryKeychain>;
  paths: ReturnType<typeof resolvePaths>;
  setNow(ms: number): void;
}

export function fakeDeps(
  options: { env?: Env; keychain?: KeychainCondition; http?: HttpClient; tty?: boolean; browser?: BrowserOpener; now?: number; platform?: NodeJS.Platform; keychainLimitBytes?: number } = {},
): FakeDeps {
  const home = mkdtempSync(join(tmpdir(), 'school-test-'));
  const env: Env = { HOME: home, SCHOOL_CONFIG_DIR: join(home, 'config'), ...(options.env ?? {}) };
  const paths = resolvePaths(env, home);
  const io = testIO({ tty: options.tty });
  const keychainStore = memoryKeychain({ locked: options.keychain === 'locked', limitBytes: options.keychainLimitBytes });
  const opened: string[] = [];
  let now = options.now ?? Date.now();
  const controller = new AbortController();
  return {
    io,
    env,
    clock: { now: () => now },
    setNow: (ms) => (now = ms),
    platform: options.platform ?? 'linux',
    http: options.http ?? createHttpClient({ env }),
    browser: options.browser ?? {
      async open(url) {
        opened.push(url);
        return { opened: true };
      },
    },
    opened,
    keychainStore,
    paths,
    state: openStateRepository({ paths, credentials: fakeBackends(paths, keychainStore, options.keychain, options.platform) }),
    signal: controller.signal,
    verbose: false,
  };
}
