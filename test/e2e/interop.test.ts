// The CLI against sandbox variants, each making one choice the specifications allow that the
// default sandbox does not (see test/sandbox/variants.ts). Each test names the behaviour the
// contract requires on such a server.
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import { OTHER_SUBJECT, type SandboxVariant, WITHHELD_SCOPE } from '@school/sandbox';
import { type Env, type RunResult, expire, keychainEntry, runSchool, stored, userEnv, withVariants, eventsOf } from './harness.js';

const login = (sb: Sandbox, env: Env, extra: string[] = []): Promise<RunResult> => runSchool(['login', '--base-url', sb.baseUrl, ...extra], env);

function expectLoggedIn(res: RunResult, who = /Logged in as Ada Lovelace/) {
  expect(res.stderr).toMatch(who);
  expect(res.code, res.stderr).toBe(0);
}

/** The scope parameter of each authorization request, exactly as the CLI sent it (null: none). */
const scopesSent = (sb: Sandbox) => eventsOf(sb, 'authorize_request').map((e) => e.scope as string | null);

describe('refresh tokens only for offline_access (OpenID Connect Core §11)', () => {
  it('asks for offline_access and refreshes after the first access token expired', async () => {
    await withVariants(['refresh-needs-offline-access'], async (sb) => {
      const env = userEnv();
      expectLoggedIn(await login(sb, env));
      expect(scopesSent(sb).at(-1)?.split(' ')).toEqual(expect.arrayContaining(['openid', 'offline_access']));
      expect(eventsOf(sb, 'token').at(-1)).toMatchObject({ grant_type: 'authorization_code', ok: true, refresh_token_issued: true });
      const first = (await stored(env)).accessToken;
      await expire(env);
      const token = await runSchool(['token'], env);
      expect(token.code, token.stderr).toBe(0);
      expect(token.stdout.trim()).not.toBe(first);
      expect(
        eventsOf(sb, 'token')
          .filter((e) => e.grant_type === 'refresh_token')
          .map((e) => e.ok),
      ).toEqual([true]);
      expect((await sb.introspect(token.stdout.trim())).active).toBe(true);
    });
  });
});

describe('whoami without userinfo', () => {
  it('uses the ID token claims from login, and says so', async () => {
    await withVariants(['no-userinfo'], async (sb) => {
      const env = userEnv();
      expectLoggedIn(await login(sb, env));
      const who = await runSchool(['whoami'], env);
      expect(who.code, who.stderr).toBe(0);
      expect(who.stdout).toMatch(/Ada Lovelace/);
      expect(who.stdout + who.stderr).toMatch(/ID token/i);
      const json = await runSchool(['whoami', '--json'], env);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ sub: 'usr_1815_ada', name: 'Ada Lovelace' });
    });
  });

  it('does not use a userinfo answer about another subject than the ID token (OpenID Connect Core §5.3.4)', async () => {
    await withVariants(['userinfo-other-subject'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expect(res.stderr).not.toContain(OTHER_SUBJECT.name);
      const who = await runSchool(['whoami'], env);
      expect(who.stdout + who.stderr).not.toContain(OTHER_SUBJECT.name);
      expect(who.stdout + who.stderr).toMatch(/usr_1815_ada|subject|sub\b/i);
    });
  });

  it('on a plain OAuth 2.0 server (no userinfo, no ID token) names the token subject, and says so', async () => {
    await withVariants(['plain-oauth2'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expect(res.stderr).not.toMatch(/unknown user/i);
      expect(res.code, res.stderr).toBe(0);
      expect(scopesSent(sb).at(-1)?.split(' ') ?? []).not.toContain('openid');
      const who = await runSchool(['whoami'], env);
      expect(who.code, who.stderr).toBe(0);
      expect(who.stdout).toContain('usr_1815_ada');
      expect(who.stdout + who.stderr).toMatch(/introspection|access token|subject/i);
    });
  });
});

describe('logout where tokens cannot all be revoked', () => {
  it('exits 0 without a revocation endpoint, warning that the tokens stay valid until they expire', async () => {
    await withVariants(['no-revocation'], async (sb) => {
      const env = userEnv();
      expectLoggedIn(await login(sb, env));
      const res = await runSchool(['logout'], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/revocation/i);
      expect(res.stderr).toMatch(/valid until (they|it) expires?/i);
      expect(await keychainEntry(env)).toBeNull();
      expect((await runSchool(['token'], env)).code).toBe(4);
    });
  });

  it('exits 0 when the access token is refused with unsupported_token_type and the refresh token is revoked', async () => {
    await withVariants(['revocation-refuses-access-tokens'], async (sb) => {
      const env = userEnv();
      expectLoggedIn(await login(sb, env));
      const set = await stored(env);
      const res = await runSchool(['logout'], env);
      expect(res.code, res.stderr).toBe(0);
      expect((await sb.introspect(set.refreshToken)).active).toBe(false);
      expect(eventsOf(sb, 'revoke')).toEqual(expect.arrayContaining([expect.objectContaining({ error: 'unsupported_token_type' })]));
      expect(await keychainEntry(env)).toBeNull();
    });
  });
});

describe('nonce', () => {
  it('sends a nonce with openid, so a server that requires one lets the default login through', async () => {
    await withVariants(['nonce-required'], async (sb) => {
      const env = userEnv();
      expectLoggedIn(await login(sb, env));
      expect(eventsOf(sb, 'authorize_request').at(-1)).toMatchObject({ nonce_sent: true });
      expect(scopesSent(sb).at(-1)?.split(' ')).toContain('openid');
    });
  });

  it('carries the nonce through a --no-wait login, whose background listener checks it in the ID token', async () => {
    await withVariants(['nonce-required'], async (sb) => {
      const env = userEnv();
      const started = await login(sb, env, ['--no-wait', '--json']);
      expect(started.code, started.stderr).toBe(0);
      const { url } = JSON.parse(started.stdout) as { url: string };
      expect(new URL(url).searchParams.get('nonce')).toBeTruthy();
      await driveLogin(url);
      const waited = await runSchool(['login', '--wait'], env);
      expectLoggedIn(waited);
      expect(eventsOf(sb, 'authorize_request').at(-1)).toMatchObject({ nonce_sent: true });
      const token = await runSchool(['token'], env);
      expect(token.code, token.stderr).toBe(0);
      expect((await sb.introspect(token.stdout.trim())).active).toBe(true);
    });
  });
});

describe('client authentication chosen from the metadata', () => {
  it('registers as a confidential client by itself when none is not offered, and says so', async () => {
    await withVariants(['no-public-clients'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expectLoggedIn(res);
      expect(res.stderr).toMatch(/confidential/i);
      expect(eventsOf(sb, 'register').map((e) => e.token_endpoint_auth_method)).toEqual(['client_secret_post']);
      const out = await runSchool(['logout'], env);
      expect(out.code, out.stderr).toBe(0);
    });
  });

  it('uses client_secret_basic at the token and revocation endpoints when that is all that is offered', async () => {
    await withVariants(['basic-auth-only'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expectLoggedIn(res);
      expect(res.stderr).toMatch(/confidential/i);
      expect(eventsOf(sb, 'register').map((e) => e.token_endpoint_auth_method)).toEqual(['client_secret_basic']);
      await expire(env);
      const token = await runSchool(['token'], env);
      expect(token.code, token.stderr).toBe(0);
      expect(
        eventsOf(sb, 'token')
          .filter((e) => e.grant_type === 'refresh_token')
          .map((e) => e.ok),
      ).toEqual([true]);
      const set = await stored(env);
      const out = await runSchool(['logout'], env);
      expect(out.code, out.stderr).toBe(0);
      expect((await sb.introspect(set.refreshToken)).active).toBe(false);
    });
  });
});

describe('scopes', () => {
  it('never sends an empty scope parameter when the server knows none of the default scopes', async () => {
    await withVariants(['unknown-scopes'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      const sent = scopesSent(sb);
      expect(sent.length).toBeGreaterThan(0);
      expect(sent).not.toContain('');
      expect(res.code, res.stderr).toBe(0);
    });
  });

  it('says once on stderr that the granted scope is narrower than asked', async () => {
    await withVariants(['narrows-granted-scope'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expectLoggedIn(res);
      expect(scopesSent(sb).at(-1)?.split(' ')).toContain(WITHHELD_SCOPE);
      expect(String(eventsOf(sb, 'token').at(-1)?.scope).split(' ')).not.toContain(WITHHELD_SCOPE);
      expect(res.stderr.match(new RegExp(WITHHELD_SCOPE, 'g'))?.length).toBe(1);
      const token = await runSchool(['token'], env);
      expect(token.code).toBe(0);
      expect(token.stderr).not.toContain(WITHHELD_SCOPE);
    });
  });
});

describe('error answers that are not JSON name the HTTP status', () => {
  it.each([
    ['token-401-empty', /\b401\b/],
    ['registration-html-400', /\b400\b/],
    ['registration-500', /\b500\b/],
  ] as const)('%s', async (variant, status) => {
    await withVariants([variant], async (sb) => {
      const res = await login(sb, userEnv());
      expect(res.code).not.toBe(0);
      expect(res.stderr).toMatch(status);
      expect(res.stderr).not.toMatch(/content.type|JSON/i);
      // The error itself is short; the sign-in lines before it (browser, URL, waiting) are not part of it.
      const error = res.stderr.slice(res.stderr.indexOf('school: '));
      expect(res.stderr).toContain('school: ');
      expect(error.trim().split('\n').length).toBeLessThanOrEqual(3);
    });
  });

  it('an OAuth error body sent as text/plain: the status and the error code are named', async () => {
    await withVariants(['registration-error-text-plain'], async (sb) => {
      const res = await login(sb, userEnv());
      expect(res.code).not.toBe(0);
      expect(res.stderr).toMatch(/\b400\b/);
      expect(res.stderr).toContain('invalid_client_metadata');
      expect(res.stderr).not.toMatch(/content.type/i);
    });
  });

  // RFC 7591 §3.2.1 says 201, but the body is the registration all the same: a server that
  // answers 200 has registered the client, and refusing it would strand the user.
  it('registration answered 200 instead of 201: logs in, the client it registered in use', async () => {
    await withVariants(['registration-200'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expectLoggedIn(res);
      expect(res.stderr).not.toMatch(/content.type|\b200\b/i);
      const registered = eventsOf(sb, 'register').map((e) => e.client_id);
      expect(registered).toHaveLength(1);
      expect(eventsOf(sb, 'token').at(-1)).toMatchObject({ grant_type: 'authorization_code', ok: true, client_id: registered[0] });
      expect((await runSchool(['token'], env)).code).toBe(0);
    });
  });
});

describe('discovery that degrades gracefully', () => {
  it.each(
    (
      [
        ['no-resource-metadata'],
        ['metadata-path-insertion-only'],
        ['metadata-root-only'],
        ['openid-discovery-only'],
        ['issuer-path', 'openid-discovery-only'],
        ['no-iss-parameter'],
      ] satisfies SandboxVariant[][]
    ).map((variants) => ({ name: variants.join(' + '), variants })),
  )('$name: logs in', async ({ variants }) => {
    await withVariants(variants, async (sb) => {
      const env = userEnv();
      expectLoggedIn(await login(sb, env));
      expect(eventsOf(sb, 'token').at(-1)).toMatchObject({ grant_type: 'authorization_code', ok: true });
      expect((await runSchool(['whoami'], env)).code).toBe(0);
    });
  });
});
