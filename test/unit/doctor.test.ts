import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/commands/doctor/doctor.js';
import { type Finding, clockSkewSeconds, diagnose } from '../../src/doctor/diagnose.js';
import type { HttpClient } from '../../src/http/client.js';
import { updateConfig } from '../../src/state/config-file.js';
import { profileAccount } from '../../src/state/credential-store.js';
import { serializeTokenSet } from '../../src/state/token-set.js';
import { API, AS, fakeAuthServer } from '../helpers/fake-auth-server.js';
import { fakeDeps, type KeychainCondition } from '../helpers/fake-deps.js';

const NOW = 1_800_000_000_000;
const ACCESS_TOKEN = 'at-doctor-secret-0123456789';
const REFRESH_TOKEN = 'rt-doctor-secret-0123456789';

/** The fake server, its answers stamped with a Date `skewSeconds` behind the test clock. */
function serverWithDate(skewSeconds = 0): HttpClient & { asked: string[]; forgotten: Set<string>; grants: Array<{ grantType: string }> } {
  const server = fakeAuthServer();
  return {
    asked: server.asked,
    forgotten: server.forgotten,
    grants: server.grants,
    async request(req) {
      const res = await server.request(req);
      return { ...res, headers: { ...res.headers, date: new Date(NOW - skewSeconds * 1000).toUTCString() } };
    },
  };
}

/** A session with its bus named, as a desktop terminal has. */
const ON_A_BUS = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' };

async function setup(options: { http?: HttpClient; keychain?: KeychainCondition; env?: Record<string, string>; storage?: 'keychain' | 'file' } = {}) {
  const deps = fakeDeps({ now: NOW, http: options.http ?? serverWithDate(), keychain: options.keychain, env: options.env });
  const storage = options.storage ?? 'keychain';
  await updateConfig(deps.paths, (c) => {
    c.profiles.default = { baseUrl: API, issuer: AS, clientId: 'client-1', authMethod: 'none', storage };
    c.clients[AS] = [{ clientId: 'client-1', authMethod: 'none', redirectUri: 'http://127.0.0.1:8400/callback', registeredAt: NOW / 1000 - 100 }];
  });
  if (options.keychain !== 'locked') {
    const set = {
      issuer: AS,
      clientId: 'client-1',
      accessToken: ACCESS_TOKEN,
      refreshToken: REFRESH_TOKEN,
      tokenType: 'bearer',
      obtainedAt: NOW / 1000 - 10,
      expiresAt: NOW / 1000 + 3590,
      scope: 'openid courses:read',
    };
    await (await deps.state.openStore(storage)).set(profileAccount(deps.paths.configDir, 'default'), serializeTokenSet(set));
  }
  return deps;
}

const problems = (findings: Finding[]) => findings.filter((f) => f.status === 'problem');
const find = (findings: Finding[], check: string) => findings.find((f) => f.check === check);

/** Deps and the target inputs of a doctor run that names nothing: the environment alone. */
async function withInputs<D extends { env: Record<string, string | undefined> }>(made: Promise<D>): Promise<[D, { env: D['env'] }]> {
  const deps = await made;
  return [deps, { env: deps.env }];
}

describe('school doctor, with fake dependencies', () => {
  it('finds nothing wrong with a reachable server, a close clock, a usable keychain and a good profile', async () => {
    const deps = await setup();
    const findings = await diagnose(deps, { env: deps.env });
    expect(problems(findings)).toEqual([]);
    expect(find(findings, 'metadata')).toMatchObject({ status: 'ok', subject: API, message: expect.stringContaining(`issuer ${AS}, PKCE S256`) });
    expect(find(findings, 'clock')).toMatchObject({ status: 'ok', data: { skew_seconds: 0 } });
    expect(find(findings, 'keychain')).toMatchObject({ status: 'ok', data: { usable: true } });
    expect(find(findings, 'registration')).toMatchObject({ status: 'ok', subject: 'default' });
    expect(find(findings, 'tokens')).toMatchObject({ status: 'ok', data: { scopes: ['openid', 'courses:read'] } });
    expect(find(findings, 'token_accepted')).toMatchObject({ status: 'ok' });
  });

  it('reports a clock off by more than the tolerance, with the fix', async () => {
    const deps = await setup({ http: serverWithDate(-120) });
    const clock = find(await diagnose(deps, { env: deps.env }), 'clock');
    expect(clock).toMatchObject({ status: 'problem', message: expect.stringContaining('120 s behind'), fix: expect.stringContaining('timedatectl') });
    expect(clockSkewSeconds(new Date(NOW).toUTCString(), NOW + 40_000, NOW + 40_200)).toBe(40);
    expect(clockSkewSeconds('not a date', NOW, NOW)).toBeUndefined();
  });

  it('reports a locked keychain that a profile depends on, and the profile it stops', async () => {
    const deps = await setup({ keychain: 'locked', env: ON_A_BUS });
    const findings = await diagnose(deps, { env: deps.env });
    expect(find(findings, 'keychain')).toMatchObject({ status: 'problem', message: expect.stringContaining('profile "default"'), fix: expect.stringContaining('unlock it') });
    expect(find(findings, 'tokens')).toMatchObject({ status: 'problem', message: expect.stringMatching(/locked/) });
  });

  it('says which proxy is used, never its credentials, and refuses one that is not http://', async () => {
    const deps = await setup({ env: { HTTPS_PROXY: 'http://user:pa55word@proxy.example:3128', HTTP_PROXY: 'socks5://proxy.example:1080' } });
    const findings = await diagnose(deps, { env: deps.env });
    expect(JSON.stringify(findings)).not.toContain('pa55word');
    expect(findings).toContainEqual(expect.objectContaining({ check: 'proxy', status: 'info', message: 'HTTPS_PROXY is set: http://proxy.example:3128.' }));
    expect(findings).toContainEqual(expect.objectContaining({ check: 'proxy_route', message: `Requests to ${API} go through the proxy http://proxy.example:3128.` }));
    expect(findings).toContainEqual(expect.objectContaining({ check: 'proxy', status: 'problem', message: 'HTTP_PROXY is socks5://proxy.example:1080, which is not an http:// proxy.' }));
  });

  it('reports a server it cannot reach, and does not judge the profile on it', async () => {
    const unreachable: HttpClient = {
      request: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', address: '127.0.0.1' });
      },
    };
    const deps = await setup({ http: unreachable });
    const findings = await diagnose(deps, { env: deps.env });
    expect(find(findings, 'reachable')).toMatchObject({ status: 'problem', message: expect.stringContaining('connection refused'), fix: expect.stringContaining('proxy') });
    expect(find(findings, 'metadata')).toBeUndefined();
    expect(find(findings, 'server')).toMatchObject({ subject: 'default', status: 'warning' });
  });

  it('reports a credential file other users can read', async () => {
    const deps = await setup({ storage: 'file' });
    chmodSync(deps.paths.credentialsFile, 0o644);
    const findings = await diagnose(deps, { env: deps.env });
    expect(problems(findings)).toEqual([expect.objectContaining({ check: 'permissions', message: expect.stringContaining('mode 0644'), fix: `chmod 600 ${deps.paths.credentialsFile}` })]);
    expect(find(findings, 'storage')).toMatchObject({ status: 'warning' });
  });

  it('checks only the profile --profile names, and says when it is not saved', async () => {
    const deps = await setup();
    const findings = await diagnose(deps, { profile: 'other', env: deps.env });
    expect(findings.filter((f) => f.subject === 'default')).toEqual([]);
    expect(find(findings, 'tokens')).toMatchObject({ subject: 'other', status: 'info', message: 'No profile "other" is saved: `school login --profile other` makes it.' });
  });

  it('asks to start a session bus and a keyring where none answers, and to unlock only a locked one', async () => {
    const missing = find(await diagnose(...(await withInputs(setup({ keychain: 'missing', storage: 'file', env: ON_A_BUS })))), 'keychain');
    expect(missing).toMatchObject({ status: 'warning', fix: expect.stringContaining('dbus-run-session -- bash, then gnome-keyring-daemon --unlock') });
    expect(missing?.fix).not.toMatch(/unlock the keyring/i);
    const locked = find(await diagnose(...(await withInputs(setup({ keychain: 'locked', env: ON_A_BUS })))), 'keychain');
    expect(locked?.fix).toMatch(/^The keyring is locked: unlock it/);
    expect(locked?.data).toMatchObject({ cause: 'locked' });
  });

  it("started without any session bus variable (a trimmed host environment): the fix names both variables and Codex's env_vars", async () => {
    const none = find(await diagnose(...(await withInputs(setup({ keychain: 'missing', storage: 'file', env: {} })))), 'keychain');
    expect(none?.data).toMatchObject({ cause: 'no_session_bus' });
    expect(none?.fix).toContain('without DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR');
    expect(none?.fix).toContain('env_vars = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]');
    expect(none?.fix).not.toMatch(/gnome-keyring\)/);
  });

  it('gives fixes with warnings and problems only, never under a fact', async () => {
    const deps = fakeDeps({ now: NOW, http: serverWithDate(), keychain: 'missing' });
    const findings = [...(await diagnose(deps, { env: deps.env })), ...(await diagnose(deps, { profile: 'other', env: deps.env }))];
    expect(findings.some((f) => f.status === 'info')).toBe(true);
    expect(findings.filter((f) => (f.status === 'info' || f.status === 'ok') && f.fix !== undefined)).toEqual([]);
    await doctorCommand.execute(() => deps, {}, []).catch(() => undefined);
    const report = deps.io.stdout();
    expect(report).toContain('No server to check');
    expect(report).not.toContain('Fix: Run `school doctor');
  });

  it('checks the saved registration with the authorization request a login sends, never a grant', async () => {
    const http = serverWithDate();
    const deps = await setup({ http });
    expect(find(await diagnose(deps, { env: deps.env }), 'registration')).toMatchObject({ status: 'ok' });
    http.forgotten.add('client-1');
    expect(find(await diagnose(deps, { env: deps.env }), 'registration')).toMatchObject({ status: 'problem', message: 'The server no longer knows the client client-1.' });
    expect(http.grants).toEqual([]);
  });

  it('checks the server a logged-out profile remembers', async () => {
    const deps = await setup();
    await deps.state.removeProfile('default');
    const findings = await diagnose(deps, { env: deps.env });
    expect(find(findings, 'metadata')).toMatchObject({ status: 'ok', subject: API });
    expect(find(findings, 'base_url')).toBeUndefined();
  });

  it('prints the report as JSON on stdout, no secret in it, and fails with problems_found when there is a problem', async () => {
    const good = await setup();
    await doctorCommand.execute(() => good, { json: true }, []);
    const report = JSON.parse(good.io.stdout());
    expect(report).toMatchObject({ ok: true, problems: 0 });
    expect(good.io.stdout()).not.toContain(ACCESS_TOKEN);
    expect(good.io.stdout()).not.toContain(REFRESH_TOKEN);

    const bad = await setup({ http: serverWithDate(300) });
    await expect(doctorCommand.execute(() => bad, {}, [])).rejects.toMatchObject({ code: 'problems_found', exitCode: 1, message: 'Found 1 problem; each has its fix in the report.' });
    expect(bad.io.stdout()).toMatch(/^ {2}PROBLEM +This machine's clock is 300 s ahead of the server's/m);
    expect(bad.io.stdout()).toMatch(/^ {10}Fix: Synchronise the system clock/m);
  });
});

describe('school doctor in CI', () => {
  const ciEnv = { SCHOOL_TOKEN: 'env-token-0123456789abcdef', SCHOOL_BASE_URL: API, CI: 'true' };

  it('needs no keychain when the credentials come from the environment, and confirms SCHOOL_TOKEN with the server', async () => {
    const deps = fakeDeps({ now: NOW, http: serverWithDate(), keychain: 'missing', env: ciEnv });
    const findings = await diagnose(deps, { env: deps.env });
    expect(problems(findings)).toEqual([]);
    expect(find(findings, 'keychain')).toMatchObject({ status: 'info' });
    expect(find(findings, 'credentials')).toMatchObject({ status: 'info', message: expect.stringContaining('SCHOOL_TOKEN is set') });
    expect(find(findings, 'environment_token')).toMatchObject({ status: 'ok', subject: API });
    expect(JSON.stringify(findings)).not.toContain(ciEnv.SCHOOL_TOKEN);
  });

  it('reports a SCHOOL_TOKEN the server rejects', async () => {
    const server = serverWithDate();
    const rejecting: HttpClient = {
      async request(req) {
        if (String(req.url).endsWith('/userinfo'))
          return {
            status: 401,
            statusText: '',
            headers: { 'content-type': 'application/json' },
            rawHeaders: [],
            body: Buffer.from('{"error":"invalid_token"}'),
            url: String(req.url),
            httpVersion: '1.1',
          };
        return server.request(req);
      },
    };
    const deps = fakeDeps({ now: NOW, http: rejecting, keychain: 'missing', env: ciEnv });
    const findings = await diagnose(deps, { env: deps.env });
    expect(problems(findings)).toEqual([
      expect.objectContaining({ check: 'environment_token', message: 'The server rejected SCHOOL_TOKEN (HTTP 401, invalid_token).', fix: expect.stringContaining('school token') }),
    ]);
  });
});
