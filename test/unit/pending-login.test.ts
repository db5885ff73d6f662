import { describe, expect, it } from 'vitest';
import { type Processes, cancelPendingLogin, systemProcesses, waitForPendingLogin } from '../../src/login/background.js';
import { startLoopback } from '../../src/login/loopback.js';
import { joinOrStartSignIn, waitingSignIn } from '../../src/login/two-step.js';
import { isCi, unattendedLoginError } from '../../src/login/unattended.js';
import { loginCommand } from '../../src/commands/login/login.js';
import type { PendingLogin } from '../../src/state/pending-login.js';
import { pendingLoginAccount } from '../../src/state/credential-store.js';
import { fakeAuthServer } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const NOW = 1_800_000_000;

function pendingFor(profile: string, listenerPid: number | undefined, expiresAt = NOW + 300): PendingLogin {
  return {
    profile,
    baseUrl: 'https://school.example',
    issuer: 'https://auth.school.example',
    clientId: 'cid-1',
    authMethod: 'none',
    redirectUri: 'http://127.0.0.1:5000/callback',
    state: 's',
    codeVerifier: 'verifier-0123456789',
    scopes: ['openid'],
    storage: 'keychain',
    authorizationUrl: 'https://auth.school.example/authorize?x',
    expiresAt,
    listenerPid,
  };
}

/**
 * Processes that live until stopped; each sleep moves the fake clock on and may run a step. A
 * living process is our listener unless `strangers` (a number the system gave another process) names it.
 */
function fakeProcesses(deps: ReturnType<typeof fakeDeps>, living: Set<number>, onSleep?: () => Promise<void>, strangers = new Set<number>()): Processes & { stopped: number[] } {
  const stopped: number[] = [];
  return {
    stopped,
    alive: (pid) => living.has(pid),
    isListener: async (pid) => living.has(pid) && !strangers.has(pid),
    async stop(pid) {
      stopped.push(pid);
      living.delete(pid);
    },
    async sleep(ms) {
      deps.setNow(deps.clock.now() + ms);
      await onSleep?.();
    },
  };
}

describe('CI and headless mode', () => {
  it.each([
    [{ CI: 'true' }, true],
    [{ CI: '1' }, true],
    [{ CI: 'yes' }, true],
    [{ CI: '' }, false],
    [{ CI: '0' }, false],
    [{ CI: 'false' }, false],
    [{ CI: 'FALSE' }, false],
    [{}, false],
  ])('CI in %o is CI: %s', (env, expected) => {
    expect(isCi(env)).toBe(expected);
  });

  it('names the environment variables to use instead', () => {
    expect(unattendedLoginError({})).toBeUndefined();
    expect(unattendedLoginError({ CI: 'true' })).toMatchObject({ exitCode: 4, code: 'login_unattended', message: expect.stringMatching(/SCHOOL_TOKEN.*SCHOOL_REFRESH_TOKEN.*SCHOOL_CLIENT_ID/) });
    expect(unattendedLoginError({ SCHOOL_REFRESH_TOKEN: 'seed' })?.message).toMatch(/headless mode/);
  });

  it('login exits 4 in CI before any request, and starts nothing', async () => {
    const server = fakeAuthServer();
    const deps = fakeDeps({ http: server, env: { CI: 'true' } });
    await expect(loginCommand.execute(() => deps, { baseUrl: 'https://api.school.example' }, [])).rejects.toMatchObject({ exitCode: 4, code: 'login_unattended' });
    expect(server.asked).toEqual([]);
    expect(deps.opened).toEqual([]);
    expect(await deps.state.pendingLoginRecords()).toEqual([]);
  });
});

describe('login --wait', () => {
  it('reports the outcome the listener recorded, once', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    const living = new Set([4242]);
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    const processes = fakeProcesses(deps, living, async () => {
      // The listener finishes: outcome first, then the record goes, then the process.
      await deps.state.saveLoginOutcome({ profile: 'default', status: 'completed', message: 'Logged in as Ada on https://school.example.', at: NOW });
      await deps.state.removePendingLogin('default', 'keychain');
      living.delete(4242);
    });
    expect(await waitForPendingLogin(deps, 'default', {}, processes)).toMatchObject({ kind: 'outcome', outcome: { status: 'completed' } });
    expect(await waitForPendingLogin(deps, 'default', {}, processes)).toEqual({ kind: 'none' });
  });

  it('is "none" without a pending login, and for one a waiting login in another terminal holds itself', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    const processes = fakeProcesses(deps, new Set());
    expect(await waitForPendingLogin(deps, 'default', {}, processes)).toEqual({ kind: 'none' });
    await deps.state.savePendingLogin(pendingFor('default', undefined));
    expect(await waitForPendingLogin(deps, 'default', {}, processes)).toEqual({ kind: 'none' });
  });

  it('reports a listener that died without an outcome as failed, and cleans up after it', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    const result = await waitForPendingLogin(deps, 'default', {}, fakeProcesses(deps, new Set()));
    expect(result).toMatchObject({ kind: 'outcome', outcome: { status: 'failed', message: expect.stringMatching(/stopped without finishing/) } });
    expect(await deps.state.pendingLoginRecord('default')).toBeUndefined();
    expect(deps.keychainStore.entries.has(pendingLoginAccount(deps.paths.configDir, 'default'))).toBe(false);
  });

  it('gives up after --timeout, leaving the login pending', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    const result = await waitForPendingLogin(deps, 'default', { maxWaitSeconds: 5 }, fakeProcesses(deps, new Set([4242])));
    expect(result).toEqual({ kind: 'still_pending', expiresAt: NOW + 300 });
    expect(await deps.state.pendingLoginRecord('default')).toBeDefined();
  });

  it('stops a listener still alive long past its deadline', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242, NOW - 60));
    const processes = fakeProcesses(deps, new Set([4242]));
    expect(await waitForPendingLogin(deps, 'default', {}, processes)).toMatchObject({ kind: 'outcome', outcome: { status: 'failed' } });
    expect(processes.stopped).toEqual([4242]);
  });
});

describe("a listener's process number, which may be another process's by now", () => {
  it('login --wait does not stop a process long past the deadline that does not answer as our listener', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242, NOW - 60));
    const processes = fakeProcesses(deps, new Set([4242]), undefined, new Set([4242]));
    expect(await waitForPendingLogin(deps, 'default', {}, processes)).toMatchObject({ kind: 'outcome', outcome: { status: 'failed' } });
    expect(processes.stopped).toEqual([]);
    expect(await deps.state.pendingLoginRecord('default')).toBeUndefined();
  });

  it('a new login does not stop a process that took the number of a listener that died early', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    const processes = fakeProcesses(deps, new Set([4242]), undefined, new Set([4242]));
    expect(await cancelPendingLogin(deps, 'default', processes)).toBe(true);
    expect(processes.stopped).toEqual([]);
  });

  it('asks the listener over its loopback port which process it is', async () => {
    const listener = await startLoopback({ port: 0, path: '/callback', timeoutMs: 5_000 });
    try {
      expect(await systemProcesses.isListener(process.pid, listener.redirectUri)).toBe(true);
      expect(await systemProcesses.isListener(process.pid + 1, listener.redirectUri)).toBe(false);
    } finally {
      await listener.close();
    }
    expect(await systemProcesses.isListener(process.pid, listener.redirectUri)).toBe(false); // nothing listens there now
  });
});

describe('superseding a pending login', () => {
  it('stops its listener and forgets it, verifier and old outcome included', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    await deps.state.saveLoginOutcome({ profile: 'default', status: 'failed', message: 'Old.', at: NOW - 1000 });
    const processes = fakeProcesses(deps, new Set([4242]));
    expect(await cancelPendingLogin(deps, 'default', processes)).toBe(true);
    expect(processes.stopped).toEqual([4242]);
    expect(await deps.state.pendingLoginRecord('default')).toBeUndefined();
    expect(await deps.state.loginOutcome('default')).toBeUndefined();
    expect(deps.keychainStore.entries.size).toBe(0);
  });

  it('never signals the process number of a listener past its deadline: it may be another process now', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242, NOW - 3600));
    const processes = fakeProcesses(deps, new Set([4242]));
    expect(await cancelPendingLogin(deps, 'default', processes)).toBe(true);
    expect(processes.stopped).toEqual([]);
  });
});

describe("a sign-in from `school mcp`: the profile's one waiting is joined, never replaced", () => {
  const request = { profile: 'default', baseUrl: 'https://school.example', timeoutSeconds: 300, confidential: false, insecureStorage: false };

  it('joins the pending login of another process while its listener waits, without starting one', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    const processes = fakeProcesses(deps, new Set([4242]));
    const signIn = await joinOrStartSignIn(deps, request, { notify: () => undefined }, processes);
    expect(signIn).toEqual({ url: 'https://auth.school.example/authorize?x', expiresAt: NOW + 300, started: false });
    expect(processes.stopped).toEqual([]);
    expect((await deps.state.pendingLoginRecord('default'))?.listenerPid).toBe(4242);
  });

  it('a step-up joins only a login that asks for the scopes to add', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    await deps.state.savePendingLogin({ ...pendingFor('default', 4242), scopes: ['openid', 'courses:read'] });
    const processes = fakeProcesses(deps, new Set([4242]));
    expect(await waitingSignIn(deps, { ...request, addScopes: ['courses:read'] }, processes)).toMatchObject({ listenerPid: 4242 });
    expect(await waitingSignIn(deps, { ...request, addScopes: ['students:read'] }, processes)).toBeUndefined();
  });

  it('does not join a login whose listener is gone, whose time is up, whose pushed request lapsed, or for another school', async () => {
    const deps = fakeDeps({ now: NOW * 1000 });
    const alive = fakeProcesses(deps, new Set([4242]));
    await deps.state.savePendingLogin(pendingFor('default', 4242));
    expect(await waitingSignIn(deps, request, fakeProcesses(deps, new Set()))).toBeUndefined();
    expect(await waitingSignIn(deps, { ...request, baseUrl: 'https://other.example' }, alive)).toBeUndefined();
    await deps.state.savePendingLogin(pendingFor('default', 4242, NOW - 1));
    expect(await waitingSignIn(deps, request, alive)).toBeUndefined();
    await deps.state.savePendingLogin({ ...pendingFor('default', 4242), openBy: NOW - 1 });
    expect(await waitingSignIn(deps, request, alive)).toBeUndefined();
    await deps.state.savePendingLogin(pendingFor('default', undefined));
    expect(await waitingSignIn(deps, request, alive)).toBeUndefined();
  });
});
