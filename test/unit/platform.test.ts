// The rules that differ by operating system, each checked through the platform a test sets (as
// the clock and the environment are set), since these tests run on Linux only.
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureWithin, overSsh, splitCommandLine, systemBrowser } from '../../src/login/browser.js';
import { waitForRedirect } from '../../src/login/redirect-wait.js';
import { type LoopbackListener, type LoopbackOptions, listenForRedirect, portDenied, startLoopback } from '../../src/login/loopback.js';
import { writeFileAtomic } from '../../src/state/atomic.js';
import { chunkedStore, WINDOWS_SECRET_LIMIT_BYTES } from '../../src/state/chunked-store.js';
import type { Profile } from '../../src/state/config-file.js';
import type { TokenSet } from '../../src/state/token-set.js';
import { fakeDeps, memoryKeychain } from '../helpers/fake-deps.js';
import { resolvePaths } from '../../src/state/paths.js';
import { fakeAuthServer } from '../helpers/fake-auth-server.js';
import { loginCommand } from '../../src/commands/login/login.js';
import { checkNewProfileName } from '../../src/platform/profile-names.js';
import { diagnose } from '../../src/doctor/diagnose.js';
import { chooseStore, storageNotice } from '../../src/login/store-choice.js';
import { type LockFiles, lockFilesFor, newLockOwner, releaseLock, systemLockFiles, tryAcquire } from '../../src/state/lock.js';
import { stopSignals } from '../../src/platform/stop-signals.js';

describe('signals that stop a run', () => {
  it('treat a hang-up like Ctrl-C and SIGTERM everywhere, with the exit status shells report', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(stopSignals(platform)).toEqual(
        expect.arrayContaining([
          { signal: 'SIGINT', exitCode: 130 },
          { signal: 'SIGTERM', exitCode: 143 },
          { signal: 'SIGHUP', exitCode: 129 },
        ]),
      );
    }
  });

  it('add Ctrl-Break (SIGBREAK) on Windows only', () => {
    expect(stopSignals('win32').map((s) => s.signal)).toContain('SIGBREAK');
    expect(stopSignals('linux').map((s) => s.signal)).not.toContain('SIGBREAK');
    expect(stopSignals('darwin').map((s) => s.signal)).not.toContain('SIGBREAK');
  });
});

/** An error as Node's fs gives it. */
const fsError = (code: string) => Object.assign(new Error(`${code}: operation not permitted`), { code });

describe('files a virus scanner holds for a moment (Windows)', () => {
  it('an atomic write retries the replace on EPERM, EACCES and EBUSY on Windows, and writes the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-atomic-'));
    const target = join(dir, 'credentials.json');
    const failures = ['EPERM', 'EACCES', 'EBUSY'];
    const pauses: number[] = [];
    await writeFileAtomic(target, '{"rotated":true}', 0o600, {
      platform: 'win32',
      rename: (from, to) => {
        const code = failures.shift();
        if (code) throw fsError(code);
        renameSync(from, to);
      },
      pause: (ms) => pauses.push(ms),
    });
    expect(readFileSync(target, 'utf8')).toBe('{"rotated":true}');
    expect(pauses).toHaveLength(3);
    expect(readdirSync(dir)).toEqual(['credentials.json']); // no temporary file left
  });

  it('gives up after a bound, removing its temporary file, and never retries on Linux or macOS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-atomic-'));
    let attempts = 0;
    const failing = (platform: NodeJS.Platform) =>
      writeFileAtomic(join(dir, 'config.json'), '{}', 0o600, {
        platform,
        rename: () => {
          attempts++;
          throw fsError('EPERM');
        },
        pause: () => undefined,
      });
    await expect(failing('win32')).rejects.toMatchObject({ code: 'EPERM' });
    expect(attempts).toBeGreaterThan(3);
    expect(attempts).toBeLessThan(20);
    for (const platform of ['linux', 'darwin'] as const) {
      attempts = 0;
      await expect(failing(platform)).rejects.toMatchObject({ code: 'EPERM' });
      expect(attempts).toBe(1);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the lock retries creating and releasing on Windows, but not the rename that finds a lock standing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-lock-'));
    const lock = join(dir, 'refresh-default.lock');
    const owner = newLockOwner();
    let busy = 2;
    const flaky: LockFiles = {
      ...systemLockFiles,
      // The owner file, just written, is held by the scanner: the first unlinks fail.
      unlink: (path) => {
        if (busy-- > 0) throw fsError('EBUSY');
        systemLockFiles.unlink(path);
      },
    };
    expect(
      tryAcquire(
        lock,
        owner,
        lockFilesFor('win32', flaky, () => undefined),
      ),
    ).toBe(true);
    releaseLock(
      lock,
      owner,
      lockFilesFor('win32', flaky, () => undefined),
    );
    expect(existsSync(lock)).toBe(false);
    // On Linux the same failure is not retried: the release leaves it (to go stale).
    busy = 1;
    expect(tryAcquire(lock, owner, lockFilesFor('linux', flaky))).toBe(true);
    releaseLock(lock, owner, lockFilesFor('linux', flaky));
    expect(existsSync(lock)).toBe(true);
    // The rename is never retried: on Windows EPERM there means the lock stands.
    let renames = 0;
    const standing: LockFiles = {
      ...systemLockFiles,
      rename: () => {
        renames++;
        throw fsError('EPERM');
      },
    };
    expect(
      tryAcquire(
        join(dir, 'other.lock'),
        newLockOwner(),
        lockFilesFor('win32', standing, () => undefined),
      ),
    ).toBe(false);
    expect(renames).toBeLessThanOrEqual(4);
  });
});

describe('Windows Credential Manager, which holds at most 2560 bytes a secret', () => {
  const ISSUER = 'https://login.school.example';
  const jwt = (n: number) => `eyJ${'a'.repeat(n)}.eyJ${'b'.repeat(n)}.${'c'.repeat(342)}`;
  // Access and refresh tokens as JWTs with many claims: the token set is well over the limit.
  const big: TokenSet = { issuer: ISSUER, clientId: 'cid-1', accessToken: jwt(1500), refreshToken: jwt(1000), tokenType: 'bearer', obtainedAt: 1000, expiresAt: 4600 };
  const profile: Profile = { baseUrl: 'https://school.example', issuer: ISSUER, clientId: 'cid-1', authMethod: 'none', storage: 'keychain' };

  it('keeps a token set larger than the limit on Windows, each entry within it', async () => {
    expect(JSON.stringify(big).length).toBeGreaterThan(2 * WINDOWS_SECRET_LIMIT_BYTES);
    const deps = fakeDeps({ platform: 'win32', keychainLimitBytes: WINDOWS_SECRET_LIMIT_BYTES });
    await deps.state.saveProfile('default', profile);
    await deps.state.saveTokens('default', 'keychain', big);
    expect(await deps.state.readTokens('default', profile)).toEqual(big);
    for (const secret of deps.keychainStore.entries.values()) expect(Buffer.byteLength(secret)).toBeLessThanOrEqual(WINDOWS_SECRET_LIMIT_BYTES);
    // A refresh replaces it: the old parts go, the new set reads back whole.
    const rotated = { ...big, accessToken: jwt(1200), refreshToken: 'rt-short' };
    const before = deps.keychainStore.entries.size;
    await deps.state.saveTokens('default', 'keychain', rotated);
    expect(await deps.state.readTokens('default', profile)).toEqual(rotated);
    expect(deps.keychainStore.entries.size).toBeLessThanOrEqual(before + 1);
    await deps.state.forgetTokens('default', 'keychain');
    expect(deps.keychainStore.entries.size).toBe(0);
  });

  it('is what the fake enforces: without splitting, the same save fails', async () => {
    const deps = fakeDeps({ platform: 'linux', keychainLimitBytes: WINDOWS_SECRET_LIMIT_BYTES });
    await deps.state.saveProfile('default', profile);
    await expect(deps.state.saveTokens('default', 'keychain', big)).rejects.toThrow(/bad data/);
  });

  it('splits only what is too large, and reads a secret saved whole before', async () => {
    const store = memoryKeychain({ limitBytes: WINDOWS_SECRET_LIMIT_BYTES });
    const split = chunkedStore(store);
    await split.set('client:x', 'small-secret');
    expect([...store.entries.keys()]).toEqual(['client:x']);
    expect(await split.get('client:x')).toBe('small-secret');
    const text = 'é'.repeat(3000); // two bytes a character: no part is cut inside one
    await split.set('profile:y', text);
    expect(await split.get('profile:y')).toBe(text);
    expect(await split.delete('profile:y')).toBe(true);
    expect([...store.entries.keys()]).toEqual(['client:x']);
  });
});

describe('a loopback port Windows has reserved (EACCES)', () => {
  it("falls back from the cached registration's port to a free one, as for a taken port", async () => {
    const tried: number[] = [];
    const start = async (options: LoopbackOptions): Promise<LoopbackListener> => {
      tried.push(options.port);
      if (options.port !== 0) throw portDenied(options.port, 'win32');
      return startLoopback(options);
    };
    const listener = await listenForRedirect({ cachedRedirectUri: 'http://127.0.0.1:50123/callback', path: '/callback', timeoutMs: 5_000, platform: 'win32' }, start);
    try {
      expect(tried).toEqual([50123, 0]);
      expect(listener.port).not.toBe(50123);
    } finally {
      await listener.close();
    }
  });

  it('names the reserved ranges on Windows, and privileges elsewhere, for an explicit --port', async () => {
    expect(portDenied(50123, 'win32')).toMatchObject({ code: 'port_denied', hint: expect.stringContaining('netsh int ipv4 show excludedportrange') });
    expect(portDenied(80, 'linux').hint).toMatch(/above 1023/);
    expect(portDenied(80, 'darwin').hint).not.toMatch(/netsh/);
    const start = async (options: LoopbackOptions): Promise<LoopbackListener> => {
      throw portDenied(options.port, options.platform!);
    };
    await expect(listenForRedirect({ port: 50123, path: '/callback', timeoutMs: 5_000, platform: 'win32' }, start)).rejects.toMatchObject({ hint: expect.stringContaining('netsh') });
  });
});

describe('BROWSER and the system opener', () => {
  it('keeps the backslashes of a Windows path in BROWSER, and still drops them as escapes elsewhere', () => {
    expect(splitCommandLine('C:\\Program Files\\Mozilla Firefox\\firefox.exe', 'win32')).toEqual(['C:\\Program', 'Files\\Mozilla', 'Firefox\\firefox.exe']);
    expect(splitCommandLine('"C:\\Program Files\\Mozilla Firefox\\firefox.exe" -new-window', 'win32')).toEqual(['C:\\Program Files\\Mozilla Firefox\\firefox.exe', '-new-window']);
    expect(splitCommandLine('/opt/my\\ browser/bin --x', 'linux')).toEqual(['/opt/my browser/bin', '--x']);
    expect(splitCommandLine('/opt/my\\ browser/bin --x', 'darwin')).toEqual(['/opt/my browser/bin', '--x']);
  });

  it('does not start a .cmd or .bat BROWSER on Windows, and says what works instead', async () => {
    const result = await systemBrowser({ BROWSER: '"C:\\Tools\\open browser.cmd"' }, 'win32').open('https://login.school.example/authorize?x=1&y=%20');
    expect(result).toEqual({ opened: false, reason: expect.stringMatching(/batch file \(C:\\Tools\\open browser\.cmd\).*\.exe/) });
  });

  it('does not open the system browser over SSH on macOS and Windows, where it would show on the remote machine', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      for (const ssh of [{ SSH_CONNECTION: '10.0.0.2 50000 10.0.0.1 22' }, { SSH_TTY: '/dev/ttys001' }]) {
        expect(await systemBrowser(ssh, platform).open('https://login.school.example/authorize')).toEqual({ opened: false, reason: expect.stringMatching(/SSH session/) });
      }
    }
    // Linux as before: without a display it says so; a display over SSH (X forwarding) is in front of the person.
    expect(await systemBrowser({ SSH_CONNECTION: '10.0.0.2 50000 10.0.0.1 22' }, 'linux').open('https://x.example')).toEqual({ opened: false, reason: 'this is an SSH session without a display' });
    expect(overSsh({ SSH_CLIENT: '10.0.0.2 50000 22' })).toBe(true);
    expect(overSsh({})).toBe(false);
  });

  it('tells a BROWSER command that fails at once (with its exit status) from one that works or keeps running', async () => {
    const failing = await systemBrowser({ BROWSER: '/bin/false' }, 'linux').open('https://x.example');
    expect(failing.opened).toBe(true);
    expect(await failing.failure).toBe('/bin/false exited with status 1');
    const working = await systemBrowser({ BROWSER: '/bin/true' }, 'linux').open('https://x.example');
    expect(await working.failure).toBeUndefined();
    const { spawn } = await import('node:child_process');
    const lasting = spawn('sleep', ['5'], { stdio: 'ignore' });
    try {
      expect(await failureWithin(lasting, 'sleep', 100)).toBeUndefined();
    } finally {
      lasting.kill();
    }
  });

  it('says in one line that the browser command failed, and goes on waiting for the redirect', async () => {
    let fail: (why: string) => void = () => undefined;
    const browser = { open: async () => ({ opened: true, failure: new Promise<string | undefined>((r) => (fail = r)) }) };
    const deps = fakeDeps({ browser });
    const listener = await startLoopback({ port: 0, path: '/callback', timeoutMs: 5_000 });
    try {
      const waiting = waitForRedirect(deps, { listener, authorizationUrl: 'https://login.school.example/authorize?state=s', openBrowser: true, timeoutSeconds: 5 });
      await new Promise((r) => setTimeout(r, 50));
      fail('/usr/bin/firefox exited with status 1');
      await new Promise((r) => setTimeout(r, 50));
      expect(deps.io.stderr()).toMatch(
        /https:\/\/login\.school\.example\/authorize\?state=s\n[\s\S]*The browser command failed: \/usr\/bin\/firefox exited with status 1\. Open the URL above to sign in; still waiting\.\n/,
      );
      void fetch(`${listener.redirectUri}?code=c0de&state=s`).catch(() => undefined); // answered once the login ends
      expect((await waiting).searchParams.get('code')).toBe('c0de');
    } finally {
      await listener.close();
    }
  });

  it('offers to paste the redirect back on a terminal when no browser could be opened', async () => {
    const deps = fakeDeps({ tty: true, platform: 'darwin', browser: systemBrowser({ SSH_TTY: '/dev/ttys001' }, 'darwin') });
    const listener = await startLoopback({ port: 0, path: '/callback', timeoutMs: 5_000 });
    try {
      const waiting = waitForRedirect(deps, { listener, authorizationUrl: 'https://login.school.example/authorize?state=s', openBrowser: true, timeoutSeconds: 5 });
      await new Promise((r) => setTimeout(r, 100));
      expect(deps.io.stderr()).toMatch(/Could not open a browser \(this is an SSH session[\s\S]*paste its full address here/);
      deps.io.write(`${listener.redirectUri}?code=c0de&state=s\n`);
      expect((await waiting).searchParams.get('code')).toBe('c0de');
    } finally {
      await listener.close();
    }
  });
});

describe('profile names that would share files', () => {
  it('refuses Windows device names and a final dot on Windows only', () => {
    for (const name of ['con', 'NUL', 'aux', 'prn', 'com1', 'LPT9', 'con.work']) {
      expect(() => checkNewProfileName(name, 'win32', []), name).toThrow(/device name on Windows/);
      expect(() => checkNewProfileName(name, 'linux', [])).not.toThrow();
      expect(() => checkNewProfileName(name, 'darwin', [])).not.toThrow();
    }
    expect(() => checkNewProfileName('work.', 'win32', [])).toThrow(/ends with a dot/);
    for (const name of ['console', 'nullable', 'com10', 'default']) expect(() => checkNewProfileName(name, 'win32', [])).not.toThrow();
  });

  it('refuses a new name that differs from a profile only by case on Windows and macOS, not on Linux', () => {
    for (const platform of ['win32', 'darwin'] as const) {
      expect(() => checkNewProfileName('work', platform, ['default', 'Work'])).toThrow(/differs from the existing profile "Work" only by case/);
      expect(() => checkNewProfileName('Work', platform, ['default', 'Work'])).not.toThrow(); // the same profile again
    }
    expect(() => checkNewProfileName('work', 'linux', ['Work'])).not.toThrow();
  });

  it('school login stops at such a name with exit 2, before any request', async () => {
    const server = fakeAuthServer();
    const deps = fakeDeps({ http: server, platform: 'win32' });
    await expect(loginCommand.execute(() => deps, { baseUrl: 'https://api.school.example', profile: 'nul' }, [])).rejects.toMatchObject({ exitCode: 2 });
    expect(server.asked).toEqual([]);
  });
});

describe('what protects the files on Windows', () => {
  it('doctor lists the files that exist with what protects them there, rather than "Nothing saved yet"', async () => {
    const deps = fakeDeps({ platform: 'win32' });
    await deps.state.saveProfile('default', { baseUrl: 'https://school.example', issuer: 'https://school.example', clientId: 'c', authMethod: 'none', storage: 'file' });
    const files = (await diagnose(deps, { env: deps.env })).filter((f) => f.area === 'files');
    expect(files.map((f) => f.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^The config dir .* is protected by your Windows user folder's access rules/),
        expect.stringMatching(/^The config file .*config\.json is protected/),
      ]),
    );
    expect(files.some((f) => /Nothing saved yet|mode 0/.test(f.message))).toBe(false);
    // Nothing saved: said as before.
    const bare = fakeDeps({ platform: 'win32' });
    const empty = (await diagnose(bare, { env: bare.env })).filter((f) => f.area === 'files');
    expect(empty.map((f) => f.message)).toEqual([expect.stringMatching(/^Nothing saved yet/)]);
  });

  it('the plain-file notice names the user folder on Windows and the mode elsewhere', async () => {
    const notes: string[] = [];
    for (const platform of ['win32', 'linux'] as const) {
      const deps = fakeDeps({ platform, keychain: 'missing' });
      const choice = await chooseStore(deps, false);
      notes.push(storageNotice(choice.store.location, choice.keychainProblem, false, platform));
    }
    expect(notes[0]).toMatch(/Windows user folder's access rules/);
    expect(notes[0]).not.toMatch(/0600/);
    expect(notes[1]).toMatch(/readable only by you \(mode 0600\)/);
  });
});

describe('where things live', () => {
  const gitBash = { HOME: 'C:\\Users\\Ada\\git-home', USERPROFILE: 'C:\\Users\\Ada', APPDATA: 'C:\\Users\\Ada\\AppData\\Roaming', LOCALAPPDATA: 'C:\\Users\\Ada\\AppData\\Local' };

  it('on Windows: %APPDATA% for config, %LOCALAPPDATA% for state and cache, whatever HOME the shell sets', () => {
    const paths = resolvePaths(gitBash, undefined, 'win32');
    expect(paths).toMatchObject({
      configDir: 'C:\\Users\\Ada\\AppData\\Roaming\\school',
      configFile: 'C:\\Users\\Ada\\AppData\\Roaming\\school\\config.json',
      credentialsFile: 'C:\\Users\\Ada\\AppData\\Roaming\\school\\credentials.json',
      stateDir: 'C:\\Users\\Ada\\AppData\\Local\\school\\state',
      cacheDir: 'C:\\Users\\Ada\\AppData\\Local\\school\\cache',
    });
    // PowerShell and cmd set no HOME: the same places.
    const { HOME: _home, ...powershell } = gitBash;
    expect(resolvePaths(powershell, undefined, 'win32')).toEqual(paths);
    expect(resolvePaths({ ...gitBash, XDG_CONFIG_HOME: 'D:\\xdg' }, undefined, 'win32')).toEqual(paths);
    expect(resolvePaths({ ...gitBash, SCHOOL_CONFIG_DIR: 'D:\\school' }, undefined, 'win32').configDir).toBe('D:\\school');
  });

  it('on Linux and macOS: exactly as before (XDG, HOME naming the home)', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      expect(resolvePaths({ HOME: '/home/ada' }, undefined, platform)).toMatchObject({
        configDir: '/home/ada/.config/school',
        stateDir: '/home/ada/.local/state/school',
        cacheDir: '/home/ada/.cache/school',
      });
      expect(resolvePaths({ HOME: '/home/ada', XDG_CONFIG_HOME: '/xdg' }, undefined, platform).configDir).toBe('/xdg/school');
      expect(resolvePaths({ HOME: '/home/ada', APPDATA: '/appdata' }, undefined, platform).configDir).toBe('/home/ada/.config/school');
    }
  });
});
