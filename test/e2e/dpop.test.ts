// DPoP (RFC 9449) against sandbox variants that offer it, require it with nonces, loop on nonces
// or sign with other algorithms: through the real browser and keychain (and the 0600 file), with
// the sandbox's API refusing a bound token that comes without its proof.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Sandbox, SandboxVariant } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Env, REPO, type RunResult, SCHOOL_BIN, expectSuccess, expire, modeOf, runAsAgent, runSchool, spawnNode, userEnv, withVariants, eventsOf } from './harness.js';

const login = (sb: Sandbox, env: Env, extra: string[] = []): Promise<RunResult> => runSchool(['login', '--base-url', sb.baseUrl, ...extra], env);
const lastJson = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!) as Record<string, unknown>;

/** The keys of the proofs the CLI sent (the test's own replays of a copied token left out). */
function proofKeys(sb: Sandbox, types: string[]): Set<unknown> {
  return new Set(sb.events.filter((e) => types.includes(e.type) && !(e.type === 'api' && e.status === 401)).map((e) => e.dpop));
}

/** What the sandbox API answers a request made with a token alone, as a copied token would be used. */
async function replayed(sb: Sandbox, token: string, scheme: 'Bearer' | 'DPoP') {
  const res = await fetch(`${sb.baseUrl}/api/lessons`, { headers: { authorization: `${scheme} ${token}` } });
  return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '' };
}

describe('DPoP-bound tokens (RFC 9449)', () => {
  const journeys: Array<[string, SandboxVariant[]]> = [
    ['offered', ['dpop-offered']],
    ['required, with nonces', ['dpop-required']],
    ['required, with nonces and pushed authorization requests', ['dpop-required', 'par-offered']],
  ];
  it.each(journeys)('%s: login, refresh, call, whoami and logout carry proofs of one key; the token alone is refused', async (_name, variants) => {
    await withVariants(variants, async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/Logged in as Ada Lovelace/);
      const issued = eventsOf(sb, 'token').filter((e) => e.ok);
      expect(issued.at(-1)).toMatchObject({ grant_type: 'authorization_code', token_type: 'DPoP' });
      const key = issued.at(-1)!.dpop;
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // The code was bound to the key before the browser opened: by dpop_jkt, or by the proof on the push.
      if (variants.includes('par-offered')) expect(eventsOf(sb, 'par').map((e) => e.dpop)).toContain(key);
      else expect(eventsOf(sb, 'authorize_request')[0]!.params).toContain('dpop_jkt');

      const status = await runSchool(['status', '--json'], env);
      expect(JSON.parse(status.stdout)[0]).toMatchObject({ profile: 'default', token_type: 'DPoP' });
      expect((await runSchool(['status'], env)).stdout).toMatch(/Tokens: +DPoP-bound/);

      const json = expectSuccess(await runAsAgent(['token', '--json'], env));
      const first = JSON.parse(json.stdout) as { access_token: string; token_type: string };
      expect(first.token_type).toBe('DPoP');
      expect(json.stderr).toBe('');
      // A copied token is worth nothing without the key: the API refuses it under either scheme.
      for (const scheme of ['Bearer', 'DPoP'] as const) {
        const copy = await replayed(sb, first.access_token, scheme);
        expect(copy.status, scheme).toBe(401);
        expect(copy.challenge, scheme).toMatch(/^DPoP error="invalid_token"/);
      }

      await expire(env); // the access token is due: `token` refreshes, with a proof
      const plain = await runSchool(['token'], env);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout.trim()).not.toBe(first.access_token);
      expect(plain.stderr).toMatch(/^Note: this token is DPoP-bound: .*`school call`/m);
      expect(plain.stderr.trim().split('\n')).toHaveLength(1);
      // Renewed with a proof of the same key, and bound to it again.
      const refreshes = eventsOf(sb, 'token').filter((e) => e.grant_type === 'refresh_token' && e.ok);
      expect(refreshes).toHaveLength(1);
      expect(new Set(refreshes.map((e) => `${String(e.dpop)} ${String(e.token_type)}`))).toEqual(new Set([`${String(key)} DPoP`]));
      expect(JSON.parse(expectSuccess(await runAsAgent(['token', '--json'], env)).stdout)).toMatchObject({ access_token: expect.stringMatching(/^\S{20,}$/), token_type: 'DPoP' });

      const call = await runSchool(['call', '/api/lessons'], env);
      expect(call.code, call.stderr).toBe(0);
      expect(
        eventsOf(sb, 'api')
          .filter((e) => e.path === '/api/lessons' && e.status === 200)
          .map((e) => [e.scheme, e.dpop]),
      ).toEqual([['dpop', key]]);
      const who = await runSchool(['whoami'], env);
      expect(who.code, who.stderr).toBe(0);
      expect(
        eventsOf(sb, 'userinfo')
          .filter((e) => e.status === 200)
          .every((e) => e.scheme === 'dpop' && e.dpop === key),
      ).toBe(true);

      const logout = await runSchool(['logout'], env);
      expect(logout.code, logout.stderr).toBe(0);
      expect(eventsOf(sb, 'revoke').map((e) => e.dpop)).toEqual([key, key]);
      expect((await sb.introspect(plain.stdout.trim())).active).toBe(false);
      // Every proof of the whole journey was made with the one key of the profile.
      expect(proofKeys(sb, ['token', 'api', 'userinfo', 'revoke'])).toEqual(new Set([key]));
    });
  });

  it('--no-dpop gets bearer tokens where DPoP is offered; a server listing no algorithm the CLI signs with gets bearer tokens too', async () => {
    for (const [variant, extra] of [
      ['dpop-offered', ['--no-dpop']],
      ['dpop-other-algs', []],
    ] as const) {
      await withVariants([variant], async (sb) => {
        const env = userEnv();
        expectSuccess(await login(sb, env, [...extra]));
        expect(eventsOf(sb, 'token').map((e) => [e.dpop, e.token_type])).toEqual([[null, 'Bearer']]);
        const token = JSON.parse(expectSuccess(await runAsAgent(['token', '--json'], env)).stdout) as { token_type: string; access_token: string };
        expect(token.token_type).toBe('bearer');
        expect((await runSchool(['status'], env)).stdout).not.toMatch(/DPoP/);
        expect((await replayed(sb, token.access_token, 'Bearer')).status).toBe(200);
        expectSuccess(await runSchool(['call', '/api/lessons'], env));
        expect(eventsOf(sb, 'api').map((e) => e.scheme)).toEqual(['bearer', 'bearer']);
      });
    }
  });

  it('keeps the key with the tokens in the 0600 file, never in plain sight', async () => {
    await withVariants(['dpop-required'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env, ['--insecure-storage']);
      expect(res.code, res.stderr).toBe(0);
      const file = join(env.SCHOOL_CONFIG_DIR, 'credentials.json');
      expect(modeOf(file)).toBe(0o600);
      const entries = (JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> }).entries;
      const set = JSON.parse(Object.entries(entries).find(([k]) => k.startsWith('profile:default@'))![1]) as { tokenType: string; dpopKey: { d: string; x: string } };
      expect(set.tokenType).toBe('DPoP');
      expect(set.dpopKey.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const outputs = [
        res,
        await runSchool(['status', '--json'], env),
        await runSchool(['token', '--json', '--verbose'], env),
        await runSchool(['call', '/api/lessons', '--verbose'], env),
        await runSchool(['doctor'], env),
      ];
      for (const out of outputs) expect(out.stdout + out.stderr).not.toContain(set.dpopKey.d);
      expect(outputs[3]!.stderr).toMatch(/dpop: \[REDACTED\]/i);
      expect(outputs[4]!.code, outputs[4]!.stdout).toBe(0);
      expect(outputs[4]!.stdout).toMatch(/The server offers pushed authorization requests; DPoP \(ES256\)|The server offers DPoP \(ES256\)/);
      expect(outputs[4]!.stdout).toMatch(/DPoP-bound tokens are in /);
    });
  });

  it('a two-step login (--no-wait, then --wait) keeps the key of the pending login until the tokens come', async () => {
    await withVariants(['dpop-required'], async (sb) => {
      const env = userEnv();
      const started = expectSuccess(await runAsAgent(['login', '--no-wait', '--json', '--base-url', sb.baseUrl], env));
      await driveLogin((JSON.parse(started.stdout) as { url: string }).url);
      expectSuccess(await runAsAgent(['login', '--wait'], env));
      expect(
        eventsOf(sb, 'token')
          .filter((e) => e.ok)
          .map((e) => e.token_type),
      ).toEqual(['DPoP']);
      expectSuccess(await runAsAgent(['call', '/api/lessons'], env));
    });
  });

  it('login --device binds the tokens too', async () => {
    await withVariants(['device-authorization', 'dpop-required'], async (sb) => {
      const env = userEnv({ BROWSER: '/bin/false' });
      const started = expectSuccess(await runAsAgent(['login', '--device', '--no-wait', '--json', '--base-url', sb.baseUrl], env));
      const out = JSON.parse(started.stdout) as { verification_uri_complete: string };
      await driveLogin(out.verification_uri_complete);
      expectSuccess(await runAsAgent(['login', '--wait', '--timeout', '60'], env));
      expect(
        eventsOf(sb, 'token')
          .filter((e) => e.ok)
          .map((e) => e.token_type),
      ).toEqual(['DPoP']);
      expectSuccess(await runAsAgent(['whoami'], env));
    });
  });

  it('the library and school mcp send proofs with their requests', async () => {
    await withVariants(['dpop-required'], async (sb) => {
      const env = userEnv();
      expectSuccess(await login(sb, env));
      const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp'], env: env as Record<string, string>, stderr: 'pipe' });
      const client = new Client({ name: 'e2e-host', version: '1.0.0' });
      await client.connect(transport);
      try {
        const lessons = await client.callTool({ name: 'listLessons', arguments: {} });
        expect(lessons.isError, JSON.stringify(lessons)).toBeFalsy();
        const who = await client.callTool({ name: 'school_whoami', arguments: {} });
        expect(who.isError, JSON.stringify(who)).toBeFalsy();
      } finally {
        await client.close();
      }
      const key = eventsOf(sb, 'token').at(-1)!.dpop;
      const lessonRequests = () => eventsOf(sb, 'api').filter((e) => e.path === '/api/lessons' && e.status === 200);
      const byMcp = lessonRequests().length; // every page of the listing
      expect(byMcp).toBeGreaterThanOrEqual(1);
      expect(new Set(lessonRequests().map((e) => `${String(e.scheme)} ${String(e.dpop)}`))).toEqual(new Set([`dpop ${String(key)}`]));
      expect(
        eventsOf(sb, 'userinfo')
          .filter((e) => e.status === 200)
          .map((e) => [e.scheme, e.dpop]),
      ).toContainEqual(['dpop', key]);

      // The library, in a process of its own, as a script would use it.
      const script = `import { openSession } from 'school'; const s = await openSession(); const r = await s.fetch('/api/lessons'); console.log(r.status);`;
      const lib = await spawnNode(['--input-type=module', '-e', script], env, { cwd: REPO }).done;
      expect(lib.stdout.trim(), lib.stderr).toBe('200');
      expect(
        lessonRequests()
          .slice(byMcp)
          .map((e) => e.dpop),
      ).toEqual([key]);
    });
  });

  it("remembers the nonce the API gave, so the next process's call needs no challenge", async () => {
    await withVariants(['dpop-required'], async (sb) => {
      const env = userEnv();
      expectSuccess(await login(sb, env));
      const lessonCalls = () =>
        eventsOf(sb, 'api')
          .filter((e) => e.path === '/api/lessons')
          .map((e) => e.status);
      expectSuccess(await runAsAgent(['call', '/api/lessons'], env));
      expect(lessonCalls()).toEqual([401, 200]);
      expectSuccess(await runAsAgent(['call', '/api/lessons'], env));
      expect(lessonCalls()).toEqual([401, 200, 200]);
    });
  });

  it('token --for-ci refuses to hand over tokens bound to a key that stays here', async () => {
    await withVariants(['dpop-offered'], async (sb) => {
      const env = userEnv();
      expectSuccess(await login(sb, env, ['--profile', 'ci-job']));
      const res = await runAsAgent(['token', '--profile', 'ci-job', '--for-ci', '--json'], env);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(lastJson(res.stderr)).toMatchObject({ error: 'usage', hint: expect.stringContaining('--no-dpop') });
      expectSuccess(await runSchool(['token', '--profile', 'ci-job'], env));
    });
  });
});

describe('hostile: a server that asks for a new nonce forever', () => {
  it('the token endpoint: the login stops after one retry with a clear error, and nothing is stored', async () => {
    await withVariants(['dpop-nonce-loop'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env, ['--json']);
      expect(res.code).toBe(1);
      expect(lastJson(res.stderr)).toMatchObject({ error: 'dpop_nonce_loop', message: expect.stringMatching(/token endpoint asked for a new DPoP nonce twice in a row/) });
      expect(eventsOf(sb, 'token').map((e) => e.error)).toEqual(['use_dpop_nonce', 'use_dpop_nonce']);
      expect((await runSchool(['token'], env)).code).toBe(4);
    });
  });

  it('the API: a call stops after one retry with exit 1; --no-dpop is the way around', async () => {
    await withVariants(['dpop-api-nonce-loop'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expect(res.code, res.stderr).toBe(0);
      const before = eventsOf(sb, 'api').length;
      const call = await runAsAgent(['call', '/api/lessons', '--json'], env);
      expect(call.code).toBe(1);
      expect(lastJson(call.stderr)).toMatchObject({ error: 'dpop_nonce_loop', message: expect.stringMatching(/API asked for a new DPoP nonce twice in a row/) });
      expect(eventsOf(sb, 'api').length - before).toBe(2);

      expectSuccess(await login(sb, env, ['--no-dpop']));
      expectSuccess(await runSchool(['call', '/api/lessons'], env));
    });
  });
});
