import { CliError, messageOf } from '../errors.js';
import { requireCommonJs } from '../util/require.js';
import { type CredentialStore, KEYCHAIN_SERVICE } from './credential-store.js';
import { MODULE_MISSING, MODULE_UNBUILT } from './keychain-cause.js';
import { type KeychainSurroundings, keychainCause, keychainCauseText, systemSurroundings } from './keychain-surroundings.js';

type Keytar = {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
};

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the keychain did not answer ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function loadKeytar(): Promise<Keytar> {
  try {
    return requireCommonJs('keytar') as Keytar;
  } catch (err) {
    // Told apart for `school doctor` (keychain-cause.ts): npm dropped the optional module it could
    // not build, or installed it with its build script held back, or it is built and will not load.
    if (!installed('keytar/package.json')) throw new Error(MODULE_MISSING);
    if (/keytar\.node/.test(messageOf(err)) && !installed('keytar/build/Release/keytar.node')) throw new Error(MODULE_UNBUILT);
    throw new Error(`the keychain module could not be loaded (${messageOf(err).split('\n')[0]})`);
  }
}

function installed(file: string): boolean {
  try {
    requireCommonJs.resolve(file);
    return true;
  } catch {
    return false;
  }
}

function cleanReason(err: unknown): string {
  return messageOf(err).split('\n')[0];
}

/** The OS keychain (Secret Service, macOS Keychain, Windows Credential Manager) through keytar. */
export async function openKeychain(timeoutMs = 5_000, around: KeychainSurroundings = systemSurroundings()): Promise<CredentialStore> {
  const keytar = await loadKeytar();
  const call = <T>(p: () => Promise<T>, what: string) =>
    withTimeout(p(), timeoutMs, what).catch((err) => {
      const reason = cleanReason(err);
      // Where the cause is known (no session bus, a sandbox, a locked keyring), the error says it and its fix.
      const cause = keychainCause(reason, around);
      throw new CliError(`The OS keychain failed: ${reason}.`, { code: 'keychain_error', cause: err, hint: cause && keychainCauseText(cause) });
    });
  return {
    kind: 'keychain',
    location: 'the OS keychain',
    get: (account) => call(() => keytar.getPassword(KEYCHAIN_SERVICE, account), 'a read'),
    set: (account, secret) => call(() => keytar.setPassword(KEYCHAIN_SERVICE, account, secret), 'a write'),
    delete: (account) => call(() => keytar.deletePassword(KEYCHAIN_SERVICE, account), 'a delete'),
  };
}

/**
 * Proves the keychain works before trusting it with a login: write, read back, delete.
 * A locked keyring reads back null, a missing D-Bus session rejects; both are caught here.
 */
export async function probeKeychain(timeoutMs = 3_000): Promise<{ ok: true; store: CredentialStore } | { ok: false; reason: string }> {
  try {
    const { randomBytes }: typeof import('node:crypto') = requireCommonJs('node:crypto');
    const store = await openKeychain(timeoutMs);
    const account = `probe:${process.pid}:${randomBytes(4).toString('hex')}`;
    const value = randomBytes(8).toString('hex');
    await store.set(account, value);
    const back = await store.get(account);
    await store.delete(account);
    if (back !== value) return { ok: false, reason: 'the keychain is locked or did not return what was written' };
    return { ok: true, store };
  } catch (err) {
    const reason = cleanReason(err)
      .replace(/^The OS keychain failed: /, '')
      .replace(/\.$/, '');
    return { ok: false, reason };
  }
}
