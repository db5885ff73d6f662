import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '@school/sandbox';
import { profileLockName } from '../../src/session/refresh.js';
import { withLock } from '../../src/state/lock.js';
import {
  type Env,
  KEYCHAIN_SERVICE,
  REPO,
  expectSuccess,
  expire,
  filesContaining,
  forwardProxy,
  keychainEntry,
  keytar,
  login as loginTo,
  modeOf,
  pollUntil,
  preloading,
  profileAccount,
  refreshGrants,
  runSchool,
  startSchool,
  stored,
  userEnv,
  withoutKeychain,
  useSandbox,
} from './harness.js';

// Tokens expire when a test says so (expire() rewrites the stored expiry), never by waiting.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const sandbox = useSandbox();

async function login(env: Env, sb: Sandbox = sandbox, extra: string[] = []) {
  expect((await loginTo(env, sb, extra)).stderr).toContain('Logged in as');
}

describe('token refresh', () => {
  it('refreshes an expiring token once, and twelve parallel processes share that one refresh', async () => {
    const env = userEnv();
    await login(env);
    const first = (await runSchool(['token'], env)).stdout.trim();
    await expire(env);
    const before = refreshGrants(sandbox).length;
    const second = await runSchool(['token', '--json'], env);
    expect(second.code).toBe(0);
    const json = JSON.parse(second.stdout);
    expect(json.access_token).not.toBe(first);
    expect(Object.keys(json).sort()).toEqual(['access_token', 'expires_at', 'scope', 'token_type']);
    expect(json.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(refreshGrants(sandbox).length).toBe(before + 1);

    await expire(env);
    const mid = refreshGrants(sandbox).length;
    const runs = await Promise.all(Array.from({ length: 12 }, () => runSchool(['token'], env)));
    for (const r of runs) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    const tokens = new Set(runs.map((r) => r.stdout));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(`${json.access_token}\n`);
    expect(refreshGrants(sandbox).length).toBe(mid + 1);
    expect(
      refreshGrants(sandbox)
        .slice(mid)
        .every((e) => e.ok === true),
    ).toBe(true);
  });

  it("refreshes without loading Node's fetch implementation, its crypto module or the fs promise API, the costliest loads it could make", async () => {
    const env = userEnv();
    await login(env, sandbox, ['--insecure-storage']);
    await expire(env);
    const before = refreshGrants(sandbox).length;
    const loaded = join(env.HOME, 'loaded-modules.txt');
    const probe = join(REPO, 'test', 'helpers', 'loaded-modules.cjs');
    const res = expectSuccess(await runSchool(['token'], { ...env, NODE_OPTIONS: preloading(probe), LOADED_MODULES_FILE: loaded }));
    expect(res.stdout).toMatch(/^\S+\n$/);
    expect(refreshGrants(sandbox).length).toBe(before + 1);
    const modules = readFileSync(loaded, 'utf8').split('\n');
    // The library that processed the answer was the build's own copy, so its checks did run.
    expect(modules).toContain(join(REPO, 'dist', 'oauth4webapi.cjs'));
    expect(modules).toContain('http');
    expect(modules.filter((m) => m.includes('undici') || m === 'crypto' || m.startsWith('internal/crypto/'))).toEqual([]);
    // Nor the fs promise API (and readline with it): the lock and the atomic write are synchronous calls.
    expect(modules).not.toContain('internal/fs/promises');
  });

  it('keeps the session when Ctrl-C arrives while a rotating refresh is in flight', async () => {
    const env = userEnv();
    await login(env);
    await expire(env);
    const proxy = await forwardProxy({ hold: /\/api\/oauth\/token$/, holdMs: 2500 });
    try {
      const before = refreshGrants(sandbox).length;
      const run = startSchool(['token'], { ...env, HTTP_PROXY: proxy.url });
      while (proxy.held() === 0) await sleep(20); // the server has rotated; its answer is on hold
      expect(refreshGrants(sandbox).length).toBe(before + 1);
      run.child.kill('SIGINT');
      const res = await run.done;
      expect(res.code).toBe(130);
      expect(res.stdout).toBe('');
    } finally {
      await proxy.close();
    }
    // The rotated refresh token was stored: the session lives on and no spent token is replayed.
    const next = await runSchool(['token'], env);
    expectSuccess(next);
    expect(refreshGrants(sandbox).filter((e) => e.ok === false)).toEqual([]);
  });

  it("two processes that both meet a 401 spend the rotating refresh token once: the second finds the first one's tokens", async () => {
    const env = userEnv();
    await login(env, sandbox, ['--insecure-storage']);
    const set = await stored(env);
    // The store holds an access token the API does not know, as valid for an hour: each process
    // sends it and meets a 401 (revoking one at the server would revoke the whole grant).
    const file = join(env.SCHOOL_CONFIG_DIR, 'credentials.json');
    const credentials = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> };
    const account = profileAccount(env);
    credentials.entries[account] = JSON.stringify({ ...JSON.parse(credentials.entries[account]!), accessToken: 'unknown-to-the-api-0123456789' });
    writeFileSync(file, JSON.stringify(credentials));
    const refused = () => sandbox.events.filter((e) => e.type === 'api' && e.path === '/api/courses' && e.status === 401 && e.authorization_header === true);
    const refusedBefore = refused().length;
    const before = refreshGrants(sandbox).length;
    // The refresh lock is held while both start, so each meets its 401 before either may refresh.
    const runs = await withLock(join(env.SCHOOL_CONFIG_DIR, 'locks'), profileLockName('default'), undefined, async () => {
      const started = [startSchool(['call', '/api/courses'], env), startSchool(['call', '/api/courses'], env)];
      await pollUntil(() => refused().length >= refusedBefore + 2, 30_000, 'both processes to meet the 401');
      expect(refreshGrants(sandbox).length).toBe(before);
      return started;
    });
    const results = await Promise.all(runs.map((r) => r.done));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    // One grant: the second process, under the lock, saw the token it was refused already replaced.
    expect(refreshGrants(sandbox).slice(before)).toEqual([expect.objectContaining({ ok: true })]);
    expect((await stored(env)).refreshToken).not.toBe(set.refreshToken);
  });

  it('ends in exit 4 and "school login" when the refresh is refused', async () => {
    const env = userEnv();
    await login(env);
    const set = await stored(env);
    // Revoking the refresh token server-side makes the next refresh fail with invalid_grant.
    const revoke = await fetch(`${sandbox.issuer}/api/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: set.refreshToken, client_id: set.clientId! }),
    });
    expect(revoke.status).toBe(200);
    await expire(env);
    const res = await runSchool(['token'], env);
    expect(res.code).toBe(4);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/refused to renew the session \(invalid_grant/);
    expect(res.stderr).toContain('school login');
  });
});

describe('whoami, status, logout', () => {
  it('shows the user and the profiles, never a secret', async () => {
    const env = userEnv();
    await login(env);
    await login({ ...env, SANDBOX_USER: 'alan', SANDBOX_PASSWORD: 'turing' }, sandbox, ['--profile', 'second']);
    const who = await runSchool(['whoami'], env);
    expect(who.stdout).toBe('Ada Lovelace ada@example.edu\n');
    const whoJson = JSON.parse((await runSchool(['whoami', '--json', '--profile', 'second'], env)).stdout);
    expect(whoJson).toMatchObject({ name: 'Alan Turing', email: 'alan@example.edu' });
    const status = await runSchool(['status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/default \(active\)[\s\S]*Ada Lovelace[\s\S]*second\n[\s\S]*Alan Turing/);
    const rows = JSON.parse((await runSchool(['status', '--json'], env)).stdout);
    expect(rows.map((r: { profile: string }) => r.profile)).toEqual(['default', 'second']);
    const token = (await runSchool(['token'], env)).stdout.trim();
    expect(status.stdout + JSON.stringify(rows)).not.toContain(token);
  });

  it('revokes both tokens at logout (introspection says inactive) and forgets them', async () => {
    const env = userEnv();
    await login(env);
    const set = await stored(env);
    expect((await sandbox.introspect(set.accessToken)).active).toBe(true);
    expect((await sandbox.introspect(set.refreshToken)).active).toBe(true);
    const res = await runSchool(['logout'], env);
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('the server revoked the tokens');
    expect((await sandbox.introspect(set.accessToken)).active).toBe(false);
    expect((await sandbox.introspect(set.refreshToken)).active).toBe(false);
    expect(await keychainEntry(env)).toBeNull();
    expect((await runSchool(['token'], env)).code).toBe(4);
  });

  it('forgets locally and exits 1 when the server cannot confirm the revocation', async () => {
    const down = await startSandbox({ quiet: true });
    const env = withoutKeychain(userEnv());
    await login(env, down);
    await down.close();
    const res = await runSchool(['logout'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/did not confirm the revocation/);
    expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)).toEqual([]);
    // The file held that profile's secrets alone: with none left, no file is left either.
    expect(existsSync(join(env.SCHOOL_CONFIG_DIR!, 'credentials.json'))).toBe(false);
  });

  it('logs out of every profile with --all, leaving none', async () => {
    const env = userEnv();
    await login(env);
    await login(env, sandbox, ['--profile', 'two']);
    const res = await runSchool(['logout', '--all'], env);
    expect(res.code).toBe(0);
    expect(res.stderr.match(/the server revoked the tokens/g)?.length).toBe(2);
    expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)).toEqual([]);
  });

  it('reports corrupted and missing store entries clearly', async () => {
    const env = withoutKeychain(userEnv());
    await login(env);
    const file = join(env.SCHOOL_CONFIG_DIR!, 'credentials.json');
    const shape = JSON.parse(readFileSync(file, 'utf8'));
    const account = Object.keys(shape.entries)[0];
    shape.entries[account] = '{"not":"tokens"}';
    writeFileSync(file, JSON.stringify(shape), { mode: 0o600 });
    const bad = await runSchool(['token'], env);
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/stored credentials .* are incomplete/);
    expect(bad.stderr).toContain('school login');
    const status = JSON.parse((await runSchool(['status', '--json'], env)).stdout);
    expect(status[0].problem).toMatch(/incomplete/);
    // Logout forgets even a damaged entry, and says the revocation could not be done.
    const out = await runSchool(['logout'], env);
    expect(out.code).toBe(1);
    expect(existsSync(file)).toBe(false);
    await login(env);
    const again = JSON.parse(readFileSync(file, 'utf8'));
    again.entries[Object.keys(again.entries)[0]] = '{"not":"tokens"}';
    writeFileSync(file, JSON.stringify(again), { mode: 0o600 });

    writeFileSync(file, '{garbage', { mode: 0o600 });
    const garbage = await runSchool(['token'], env);
    expect(garbage.code).not.toBe(0);
    expect(garbage.stderr).toMatch(/credential file .* is corrupted/);
    expect(garbage.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);

    const keyEnv = userEnv();
    await login(keyEnv);
    await (await keytar()).deletePassword(KEYCHAIN_SERVICE, profileAccount(keyEnv));
    const missing = await runSchool(['token'], keyEnv);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/No credentials for profile "default" in the OS keychain/);
  });
});

describe('a confidential client', () => {
  it('registers with client_secret_post, keeps the secret off disk, refreshes and revokes', async () => {
    const env = userEnv();
    await login(env, sandbox, ['--confidential']);
    const reg = sandbox.events.filter((e) => e.type === 'register').at(-1)!;
    expect(reg.token_endpoint_auth_method).toBe('client_secret_post');
    const set = await stored(env);
    expect(set.clientSecret).toBeTruthy();
    expect(filesContaining(env.HOME, set.clientSecret as string)).toEqual([]);
    await expire(env);
    const before = refreshGrants(sandbox).length;
    expectSuccess(await runSchool(['token'], env));
    expect(refreshGrants(sandbox).at(-1)).toMatchObject({ ok: true, client_id: reg.client_id });
    expect(refreshGrants(sandbox).length).toBe(before + 1);
    expect((await runSchool(['logout'], env)).code).toBe(0);
    // The confidential client authenticated at the revocation endpoint, and its refresh token was revoked there.
    const revokes = sandbox.events.filter((e) => e.type === 'revoke' && e.client_id === reg.client_id);
    expect(revokes).toContainEqual(expect.objectContaining({ ok: true, revoked: 'refresh_token' }));
    expect(revokes.every((e) => e.ok)).toBe(true);
  });
});

describe('CI and scripts without a keychain', () => {
  it('uses SCHOOL_TOKEN as it is, without a store', async () => {
    const env = userEnv();
    await login(env);
    const token = (await runSchool(['token'], env)).stdout.trim();
    const ci = withoutKeychain(userEnv({ SCHOOL_TOKEN: token, SCHOOL_BASE_URL: sandbox.baseUrl }));
    const res = await runSchool(['token'], ci);
    expect(res.stdout).toBe(`${token}\n`);
    const call = await runSchool(['call', '/api/students'], ci);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.stdout).anonymous).toBe(false);
    expect(JSON.parse((await runSchool(['status', '--json'], ci)).stdout)[0]).toMatchObject({ storage: 'env', base_url: sandbox.baseUrl });
    expect(existsSync(join(ci.SCHOOL_CONFIG_DIR!, 'credentials.json'))).toBe(false);
  });

  for (const rotate of [true, false]) {
    it(`runs a job from a handed-over seed over several invocations (rotation ${rotate ? 'on' : 'off'})`, async () => {
      const sb = rotate ? sandbox : await startSandbox({ quiet: true, rotateRefreshTokens: false });
      try {
        const dev = userEnv();
        await login(dev, sb, ['--profile', 'ci-nightly', '--scope', 'openid courses:read']);
        const handed = await runSchool(['token', '--profile', 'ci-nightly', '--for-ci'], dev);
        expect(handed.code).toBe(0);
        const values = Object.fromEntries(
          handed.stdout
            .trim()
            .split('\n')
            .map((l) => l.split(/=(.*)/s).slice(0, 2)),
        );
        expect(Object.keys(values).sort()).toEqual(['SCHOOL_BASE_URL', 'SCHOOL_CLIENT_ID', 'SCHOOL_REFRESH_TOKEN']);
        expect(JSON.parse((await runSchool(['status', '--json'], dev)).stdout)).toEqual([]);

        const job = withoutKeychain(userEnv(values));
        const grants = () => refreshGrants(sb).filter((e) => e.client_id === values.SCHOOL_CLIENT_ID);
        const a = await runSchool(['token'], job);
        expect(a.code).toBe(0);
        expect(grants().length).toBe(1);
        if (rotate) expect(a.stderr).toMatch(/SCHOOL_REFRESH_TOKEN is now spent/);
        else expect(a.stderr).toBe('');
        const b = await runSchool(['token'], job);
        expect(b.stdout).toBe(a.stdout);
        expect(b.stderr).toBe('');
        expect(grants().length).toBe(1);
        await expire(job, { job: true });
        const c = await runSchool(['call', '/api/courses'], job);
        expect(c.code).toBe(0);
        expect(JSON.parse(c.stdout).anonymous).toBe(false);
        expect(grants().length).toBe(2);
        expect(grants().every((e) => e.ok)).toBe(true);
        // The rotated refresh token lives in a 0600 file in the state dir, never the seed's replay.
        const stateDir = join(job.SCHOOL_CONFIG_DIR!, 'state');
        for (const f of readdirSync(stateDir)) expect(modeOf(join(stateDir, f))).toBe(0o600);
        expect(sb.events.some((e) => e.type === 'token' && e.client_id === values.SCHOOL_CLIENT_ID && e.ok === false)).toBe(false);
      } finally {
        if (!rotate) await sb.close();
      }
    });
  }

  it('takes SCHOOL_BASE_URL as seriously as --base-url, and never pairs a seed with a profile', async () => {
    const env = userEnv();
    await login(env);
    const other = 'http://127.0.0.1:9/';
    const mismatch = await runSchool(['call', '/api/courses'], { ...env, SCHOOL_BASE_URL: other });
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toContain(`is logged in to ${sandbox.baseUrl}, not http://127.0.0.1:9`);
    const seedOnly = await runSchool(['token'], { ...env, SCHOOL_REFRESH_TOKEN: 'rt-not-for-this-server', SCHOOL_CLIENT_ID: 'other-client' });
    expect(seedOnly.code).toBe(2);
    expect(seedOnly.stderr).toContain('SCHOOL_REFRESH_TOKEN needs SCHOOL_BASE_URL');
    expect(sandbox.events.some((e) => e.type === 'token' && e.client_id === 'other-client')).toBe(false);
  });

  it('needs a named profile to hand over', async () => {
    const res = await runSchool(['token', '--for-ci'], userEnv());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--profile');
  });
});
