// What trying the CLI against servers, CI layouts and agents in the field showed: logout on a
// server stricter than its metadata, one seed for a matrix of parallel CI jobs, and one JSON style.
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Env, type RunResult, expectSuccess, keychainEntry as keychainText, runSchool, userEnv, withoutKeychain, withVariants, eventsOf } from './harness.js';

async function keychainEntry(env: Env): Promise<{ accessToken: string; refreshToken?: string } | null> {
  const text = await keychainText(env);
  return text ? (JSON.parse(text) as { accessToken: string; refreshToken?: string }) : null;
}

describe('logout on a server that accepts only the registered method at revocation (Glewlwyd)', () => {
  it('a confidential client registered with client_secret_post logs out, though the metadata names client_secret_basic', async () => {
    await withVariants(['endpoint-auth-registered-only'], async (sb) => {
      const env = userEnv();
      expectSuccess(await runSchool(['login', '--base-url', sb.baseUrl, '--confidential'], env));
      const [registered] = eventsOf(sb, 'register');
      expect(registered).toMatchObject({ token_endpoint_auth_method: 'client_secret_post' });
      const stored = (await keychainEntry(env))!;
      expect(stored.refreshToken).toBeTruthy();

      const out = await runSchool(['logout'], env);
      expect(out.code, out.stderr).toBe(0);
      expect((await sb.introspect(stored.refreshToken!)).active).toBe(false);
      // Both tokens revoked with the registered method, at the first attempt.
      const revocations = eventsOf(sb, 'revoke');
      expect(revocations.map((e) => e.ok)).toEqual([true, true]);
      expect(revocations.every((e) => e.client_id === registered!.client_id)).toBe(true);
      expect(await keychainEntry(env)).toBeNull();
    });
  });
});

describe('CI at matrix scale: one seed, parallel jobs on separate machines', () => {
  const JOBS = 4;

  /** A dedicated grant minted at a desk and handed over with `token --for-ci`. */
  async function mintSeed(sb: Sandbox, extra: string[] = []): Promise<{ values: Record<string, string>; notice: string }> {
    const desk = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sb.baseUrl, '--profile', 'ci-matrix', '--scope', 'openid courses:read', ...extra], desk));
    const handed = expectSuccess(await runSchool(['token', '--profile', 'ci-matrix', '--for-ci', '--json'], desk));
    return { values: JSON.parse(handed.stdout) as Record<string, string>, notice: handed.stderr };
  }

  /** Each job a machine of its own: its own config dir, no keychain, the seed from the CI secrets. */
  const runJobs = (seeds: Array<Record<string, string>>): Promise<RunResult[]> => Promise.all(seeds.map((values) => runSchool(['token'], withoutKeychain(userEnv(values)))));
  const matrixOf = (values: Record<string, string>) => Array.from({ length: JOBS }, () => values);

  function expectOneServedTheRefused(results: RunResult[]) {
    const served = results.filter((r) => r.code === 0);
    const refused = results.filter((r) => r.code !== 0);
    expect(served, results.map((r) => r.stderr).join('\n')).toHaveLength(1);
    expect(served[0]!.stdout.trim()).toMatch(/^\S{16,}$/);
    for (const r of refused) {
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/invalid_grant/);
      expect(r.stderr).toMatch(/another job running with the same seed may have spent it/);
      expect(r.stderr).toMatch(/each job its own seed/);
      expect(r.stderr).toMatch(/school login --confidential` where the server does not rotate a confidential client's refresh tokens/);
    }
  }

  it("a public client's seed on a server that rotates refresh tokens serves exactly one job, and says so when minted and when refused", async () => {
    await withVariants([], async (sb) => {
      const { values, notice } = await mintSeed(sb);
      expect(values.SCHOOL_CLIENT_SECRET).toBeUndefined();
      expect(notice).toMatch(/serves one job at a time/);
      expect(notice).toMatch(/each job its own seed/);
      expect(notice).not.toContain(values.SCHOOL_REFRESH_TOKEN);
      expectOneServedTheRefused(await runJobs(matrixOf(values)));
    });
  });

  it('one seed per job serves a matrix of public clients', async () => {
    await withVariants([], async (sb) => {
      const seeds = [(await mintSeed(sb)).values, (await mintSeed(sb)).values];
      const results = await runJobs(seeds);
      expect(
        results.map((r) => r.code),
        results.map((r) => r.stderr).join('\n'),
      ).toEqual([0, 0]);
      expect(
        eventsOf(sb, 'token')
          .filter((e) => e.grant_type === 'refresh_token')
          .every((e) => e.ok),
      ).toBe(true);
    });
  });

  it("a --confidential seed serves every job of the matrix, twice over, where the server does not rotate a confidential client's refresh tokens", async () => {
    await withVariants(['rotates-public-clients-only'], async (sb) => {
      const { values, notice } = await mintSeed(sb, ['--confidential']);
      expect(values.SCHOOL_CLIENT_SECRET).toBeTruthy();
      expect(notice).toMatch(/several jobs at once only where the server does not rotate a confidential client's refresh tokens/);
      for (const round of [1, 2]) {
        const results = await runJobs(matrixOf(values));
        expect(
          results.map((r) => r.code),
          `round ${round}: ${results.map((r) => r.stderr).join('\n')}`,
        ).toEqual(Array(JOBS).fill(0));
      }
      const grants = eventsOf(sb, 'token').filter((e) => e.grant_type === 'refresh_token' && e.client_id === values.SCHOOL_CLIENT_ID);
      expect(grants).toHaveLength(2 * JOBS);
      expect(grants.every((e) => e.ok)).toBe(true);
    });
  });

  it('a --confidential seed on a server that rotates every refresh token serves one job, as its notice warned', async () => {
    await withVariants([], async (sb) => {
      const { values, notice } = await mintSeed(sb, ['--confidential']);
      expect(notice).toMatch(/where it does, it serves one job at a time, so give each job its own seed/);
      expectOneServedTheRefused(await runJobs(matrixOf(values)));
    });
  });
});

describe('one JSON style: every --json output has snake_case keys, but one', () => {
  /** The path of every key in camelCase (a lower-case letter or digit followed by a capital). */
  function camelCaseKeys(value: unknown, path = '$'): string[] {
    if (Array.isArray(value)) return value.flatMap((v, i) => camelCaseKeys(v, `${path}[${i}]`));
    if (!value || typeof value !== 'object') return [];
    return Object.entries(value).flatMap(([k, v]) => [...(/[a-z0-9][A-Z]/.test(k) ? [`${path}.${k}`] : []), ...camelCaseKeys(v, `${path}.${k}`)]);
  }

  // The one exception: each row of the operations listing (`school api --json`, `call --list
  // --json`) names the description's `operationId` by OpenAPI's own field name, as the contract
  // spells it, so a script matches it against the description without translating the key.
  const LISTING_ROW_OPERATION_ID = /^\$\[\d+\]\.operationId$/;
  const LISTINGS = new Set(['call --list --json', 'api --json']);

  it('login, status, token, token --for-ci, doctor, call --list, api, logout and the error objects', async () => {
    await withVariants([], async (sb) => {
      const env = userEnv();
      const outputs: Array<{ what: string; json: unknown }> = [];
      const collect = (what: string, text: string) => {
        expect(text.trim(), what).not.toBe('');
        outputs.push({ what, json: JSON.parse(text) });
      };
      const stdoutOf = async (args: string[], runEnv: Env = env) => {
        const res = await runSchool(args, runEnv);
        collect(args.join(' '), res.stdout);
        return res;
      };

      // Not walked: `whoami --json`, the server's claims passed on as they are, and `call`, the API's bodies.
      const started = await stdoutOf(['login', '--no-wait', '--json', '--base-url', sb.baseUrl]);
      expect(started.code, started.stderr).toBe(0);
      await stdoutOf(['status', '--json']); // a pending login
      await driveLogin((JSON.parse(started.stdout) as { url: string }).url);
      expectSuccess(await stdoutOf(['login', '--wait', '--json']));
      expectSuccess(await stdoutOf(['status', '--json']));
      expectSuccess(await stdoutOf(['token', '--json']));
      // A proxy variable adds the route finding; loopback goes direct.
      await stdoutOf(['doctor', '--json'], { ...env, HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' });
      expectSuccess(await stdoutOf(['call', '--list', '--json']));
      expectSuccess(await stdoutOf(['api', '--json']));
      expectSuccess(await stdoutOf(['login', '--json', '--base-url', sb.baseUrl, '--profile', 'second']));
      expectSuccess(await stdoutOf(['login', '--json', '--base-url', sb.baseUrl, '--profile', 'ci-third']));
      expectSuccess(await stdoutOf(['logout', '--json', '--profile', 'second']));
      // Environment variable names, upper case by nature.
      expectSuccess(await stdoutOf(['token', '--for-ci', '--json', '--profile', 'ci-third']));
      expectSuccess(await stdoutOf(['logout', '--json']));
      const notLoggedIn = await runSchool(['token', '--json'], env);
      expect(notLoggedIn.code).toBe(4);
      collect('token --json (error)', notLoggedIn.stderr);
      const seed = await runSchool(['status', '--json'], withoutKeychain(userEnv({ SCHOOL_REFRESH_TOKEN: 'seed-0123456789', SCHOOL_CLIENT_ID: 'cid', SCHOOL_BASE_URL: sb.baseUrl })));
      collect('status --json (headless)', seed.stdout);

      // The status rows hold what the camelCase keys used to name.
      const [, loggedIn] = outputs.filter((o) => o.what === 'status --json');
      expect((loggedIn!.json as Array<Record<string, unknown>>)[0]).toMatchObject({ base_url: sb.baseUrl, client_id: expect.any(String), expires_at: expect.any(Number), pending_login: null });
      for (const { what, json } of outputs) {
        const unexpected = camelCaseKeys(json).filter((key) => !(LISTINGS.has(what) && LISTING_ROW_OPERATION_ID.test(key)));
        expect(unexpected, what).toEqual([]);
      }
      // The exception is the listing's key indeed, in every row of both listings.
      for (const what of LISTINGS) {
        const rows = outputs.find((o) => o.what === what)!.json as Array<Record<string, unknown>>;
        expect(rows.length, what).toBeGreaterThan(0);
        for (const row of rows) expect(Object.keys(row), what).toContain('operationId');
      }
    });
  }, 180_000); // sixteen runs of the CLI and a browser login, on a shared machine
});
