// The whole journey (login, whoami, refresh, call, logout) against two authorization servers
// of different implementations: the sandbox (oidc-provider, OpenID Connect, opaque tokens)
// and the peer (@jmondi/oauth2-server, plain OAuth 2.0, JWT tokens, no userinfo, no ID
// token, no `iss` in the redirect, another path layout).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Peer, startPeer } from '../peers/jmondi/server.js';
import { type Sandbox, startSandbox } from '@school/sandbox';
import { expire, filesContaining, keychainEntry, runSchool, stored as storedTokens, userEnv } from './harness.js';

interface Server {
  baseUrl: string;
  /** Who `whoami` must name: the sandbox's userinfo name, the peer's subject. */
  identity: RegExp;
  /** A protected API path that answers 200 with the user's data. */
  callPath: string;
  callBody: RegExp;
  refreshGrants(): { ok: unknown }[];
  /** Whether the server still accepts the token (false once revoked or expired). */
  active(token: string): Promise<boolean>;
  close(): Promise<void>;
}

const servers: Record<string, () => Promise<Server>> = {
  'the sandbox (oidc-provider)': async () => {
    const sb: Sandbox = await startSandbox({ quiet: true });
    return {
      baseUrl: sb.baseUrl,
      identity: /Ada Lovelace/,
      callPath: '/api/courses',
      callBody: /"courses"/,
      refreshGrants: () => sb.events.filter((e) => e.type === 'token' && e.grant_type === 'refresh_token').map((e) => ({ ok: e.ok })),
      active: async (token) => (await sb.introspect(token)).active === true,
      close: () => sb.close(),
    };
  },
  'the peer (@jmondi/oauth2-server)': async () => {
    const peer: Peer = await startPeer({ quiet: true });
    return {
      baseUrl: peer.baseUrl,
      // No userinfo and no ID token: what is known is the token's subject.
      identity: new RegExp(peer.users[0]!.id),
      callPath: '/api/me',
      callBody: /"username":"ada"/,
      refreshGrants: () => peer.events.filter((e) => e.type === 'token' && e.grant_type === 'refresh_token').map((e) => ({ ok: e.ok })),
      active: async (token) => (await peer.tokenState(token)) === 'active',
      close: () => peer.close(),
    };
  },
};

describe('client_secret_basic at a server that reads Basic credentials as sent (the peer)', () => {
  it('registers an id and secret holding - _ . ~, then exchanges, refreshes and revokes with them', async () => {
    const peer = await startPeer({ quiet: true, basicWithPunctuation: true });
    try {
      const env = userEnv();
      const login = await runSchool(['login', '--base-url', peer.baseUrl, '--confidential'], env);
      expect(login.code, login.stderr).toBe(0);
      const registered = peer.events.find((e) => e.type === 'register')!;
      expect(registered).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', client_id: expect.stringMatching(/^pre-registered_client\.[0-9a-f]+~v1$/) });
      const stored = await storedTokens(env);
      await expire(env);
      const token = await runSchool(['token'], env);
      expect(token.code, token.stderr).toBe(0);
      expect(peer.events.filter((e) => e.type === 'token' && e.grant_type === 'refresh_token').map((e) => e.ok)).toEqual([true]);
      const rotated = await storedTokens(env);
      expect(rotated.accessToken).not.toBe(stored.accessToken);
      const logout = await runSchool(['logout'], env);
      expect(logout.code, logout.stderr).toBe(0);
      expect(await peer.tokenState(rotated.accessToken)).not.toBe('active');
    } finally {
      await peer.close();
    }
  });
});

describe.each(Object.keys(servers))('the journey against %s', (name) => {
  let server: Server;
  beforeAll(async () => {
    server = await servers[name]!();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('logs in, says who is logged in, refreshes, calls the API and logs out', async () => {
    const env = userEnv();
    const login = await runSchool(['login', '--base-url', server.baseUrl], env);
    expect(login.stderr).toMatch(/Logged in/);
    expect(login.stderr).not.toMatch(/unknown user/i);
    expect(login.code, login.stderr).toBe(0);

    const stored = await storedTokens(env);
    expect(stored.refreshToken, 'a refresh token was obtained').toBeTruthy();

    const who = await runSchool(['whoami'], env);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toMatch(server.identity);

    // Past the access token's lifetime: `token` must refresh, not hand out a dead token.
    await expire(env);
    const before = server.refreshGrants().length;
    const token = await runSchool(['token'], env);
    expect(token.code, token.stderr).toBe(0);
    const fresh = token.stdout.trim();
    expect(fresh).not.toBe(stored.accessToken);
    expect(server.refreshGrants().slice(before)).toEqual([{ ok: true }]);
    expect(await server.active(fresh)).toBe(true);

    const call = await runSchool(['call', server.callPath], env);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toMatch(server.callBody);

    const rotated = await storedTokens(env);
    const logout = await runSchool(['logout'], env);
    expect(logout.code, logout.stderr).toBe(0);
    expect(await server.active(rotated.accessToken)).toBe(false);
    if (rotated.refreshToken) expect(await server.active(rotated.refreshToken)).toBe(false);
    expect(await keychainEntry(env)).toBeNull();
    expect((await runSchool(['whoami'], env)).code).toBe(4);

    for (const secret of [stored.accessToken, fresh, rotated.refreshToken ?? fresh]) {
      expect(filesContaining(env.HOME, secret)).toEqual([]);
      expect(login.stderr + who.stdout + who.stderr + call.stdout + call.stderr + logout.stderr).not.toContain(secret);
    }
  });
});
