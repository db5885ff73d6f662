// Pushed authorization requests (RFC 9126) against sandbox variants that offer and require them,
// through the real browser and keychain, and against a server that points them elsewhere.
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Env, type RunResult, expectSessionAfterLogin, expectSuccess, runAsAgent, runSchool, userEnv, withVariants, eventsOf } from './harness.js';

const login = (sb: Sandbox, env: Env, extra: string[] = []): Promise<RunResult> => runSchool(['login', '--base-url', sb.baseUrl, ...extra], env);

describe('pushed authorization requests (RFC 9126)', () => {
  it.each(['par-offered', 'par-required'] as const)('%s: the browser gets only client_id and request_uri; refresh, call, whoami and logout work', async (variant) => {
    await withVariants([variant], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expect(res.stderr).toMatch(/Logged in as Ada Lovelace/);
      expect(res.code, res.stderr).toBe(0);
      const pushed = eventsOf(sb, 'par');
      expect(pushed).toHaveLength(1);
      expect(pushed[0]).toMatchObject({ ok: true, status: 201 });
      expect(String(pushed[0]!.scope).split(' ')).toContain('openid');
      // What the browser was sent: nothing of the request but the client and the reference to it.
      expect(eventsOf(sb, 'authorize_request').map((e) => [...(e.params as string[])].sort())).toEqual([['client_id', 'request_uri']]);
      expect(res.stderr).not.toMatch(/code_challenge|scope=/);
      expect(eventsOf(sb, 'token').at(-1)).toMatchObject({ grant_type: 'authorization_code', ok: true });

      await expectSessionAfterLogin(sb, env);
    });
  });

  it('a two-step login says by when its pushed request must be opened, which is sooner than the login waits', async () => {
    await withVariants(['par-offered'], async (sb) => {
      const env = userEnv();
      const started = await runAsAgent(['login', '--no-wait', '--json', '--base-url', sb.baseUrl], env);
      expect(started.code, started.stderr).toBe(0);
      const out = JSON.parse(started.stdout) as { url: string; expires_at: number; open_by: number };
      const now = Date.now() / 1000;
      // oidc-provider keeps a pushed request 60 s; the login waits the default 300 s.
      expect(out.open_by).toBeGreaterThan(now + 30);
      expect(out.open_by).toBeLessThanOrEqual(now + 61);
      expect(out.expires_at - out.open_by).toBeGreaterThan(200);
      expect(started.stderr).toMatch(/\(open it before \S+Z: the server keeps the request behind it only that long; the sign-in may then take until \S+Z\):\n/);
      await driveLogin(out.url);
      expectSuccess(await runAsAgent(['login', '--wait'], env));
    });
  });

  it('par-required refuses an authorization request that was not pushed (the login above is what makes it pass)', async () => {
    await withVariants(['par-required'], async (sb) => {
      const metadata = (await (await fetch(`${sb.baseUrl}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      expect(metadata.require_pushed_authorization_requests).toBe(true);
      const plain = new URL(String(metadata.authorization_endpoint));
      plain.searchParams.set('client_id', 'anyone');
      plain.searchParams.set('response_type', 'code');
      const answer = await fetch(plain, { redirect: 'manual' });
      expect(answer.status).toBeGreaterThanOrEqual(400);
    });
  });

  it('hostile: a PAR endpoint on another origin is refused and nothing is sent there', async () => {
    await withVariants(['par-foreign-endpoint'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env, ['--json']);
      expect(res.code).toBe(1);
      expect(JSON.parse(res.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: 'foreign_endpoint' });
      expect(res.stderr).toMatch(/pushed_authorization_request_endpoint on another origin \(http:\/\/localhost:\d+\)/);
      expect(eventsOf(sb, 'par')).toEqual([]);
      expect(eventsOf(sb, 'request').filter((e) => e.path === '/request')).toEqual([]);
      expect(eventsOf(sb, 'authorize_request')).toEqual([]);
      expect(eventsOf(sb, 'register')).toEqual([]);
    });
  });

  it('hostile: a request_uri on another origin is refused before the browser opens', async () => {
    await withVariants(['par-foreign-request-uri'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/request_uri on another origin \(http:\/\/localhost:\d+\); refusing it/);
      expect(eventsOf(sb, 'par').map((e) => e.ok)).toEqual([true]);
      expect(eventsOf(sb, 'authorize_request')).toEqual([]);
      expect(eventsOf(sb, 'request').filter((e) => String(e.path).startsWith('/request/'))).toEqual([]);
      expect((await runSchool(['status'], env)).stdout).not.toMatch(/Ada/);
    });
  });
});
