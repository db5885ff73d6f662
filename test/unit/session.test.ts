import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../src/http/client.js';
import { createDpopKey } from '../../src/oauth/dpop.js';
import { resolveSession } from '../../src/session/session.js';
import { resolveTarget } from '../../src/session/target.js';
import type { Profile } from '../../src/state/config-file.js';
import type { TokenSet } from '../../src/state/token-set.js';
import { API, AS, fakeAuthServer, storedTokens } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const NOW = 1_800_000_000;
const profile: Profile = { baseUrl: API, issuer: AS, clientId: 'cid-1', authMethod: 'none', storage: 'keychain' };
const stored = (overrides: Partial<TokenSet> = {}): TokenSet => storedTokens(NOW, overrides);

async function setup(p: { env?: Record<string, string>; tokens?: TokenSet; refresh?: 'rotate' | 'keep' | 'invalid_grant'; keychain?: 'ok' | 'missing' } = {}) {
  const server = fakeAuthServer();
  server.refresh = p.refresh ?? 'rotate';
  const deps = fakeDeps({ http: server, now: NOW * 1000, env: p.env, keychain: p.keychain });
  if (p.tokens) {
    await deps.state.saveProfile('default', profile);
    await deps.state.saveTokens('default', profile.storage, p.tokens);
  }
  const notices: string[] = [];
  const resolve = async () => resolveSession(deps, await resolveTarget(deps.state, { env: deps.env }), { notify: (t) => notices.push(t) });
  return { server, deps, notices, resolve };
}

const refreshGrants = (server: ReturnType<typeof fakeAuthServer>) => server.grants.filter((g) => g.grantType === 'refresh_token');

describe('getting a usable session', () => {
  it('uses SCHOOL_TOKEN as it is, with no request and nothing stored', async () => {
    const { server, resolve } = await setup({ env: { SCHOOL_TOKEN: 'env-token-0123456789', SCHOOL_BASE_URL: API } });
    expect(await resolve()).toMatchObject({ accessToken: 'env-token-0123456789', source: 'env', baseUrl: API });
    expect(server.asked).toEqual([]);
  });

  it('is undefined without a profile', async () => {
    const { resolve } = await setup();
    expect(await resolve()).toBeUndefined();
  });

  it.each([
    { name: 'a fresh token is used as stored', tokens: stored(), grants: 0, accessToken: 'at-stored-0123456789' },
    { name: 'a token about to expire is refreshed first and the new one kept', tokens: stored({ expiresAt: NOW + 30 }), grants: 1, accessToken: expect.stringMatching(/^at-/) },
  ])('profile: $name', async ({ tokens, grants, accessToken }) => {
    const { server, deps, resolve } = await setup({ tokens });
    const session = await resolve();
    expect(session).toMatchObject({ source: 'keychain', accessToken, issuer: AS });
    expect(refreshGrants(server)).toHaveLength(grants);
    expect((await deps.state.readTokens('default', profile)).accessToken).toBe(session?.accessToken);
    if (grants) expect(refreshGrants(server)[0].params.get('refresh_token')).toBe('rt-stored-0123456789');
  });

  it('renews on demand after a 401, once per seen token', async () => {
    const { server, resolve } = await setup({ tokens: stored() });
    const session = await resolve();
    const renewed = await session!.refresh!();
    expect(renewed.accessToken).not.toBe(session!.accessToken);
    expect(refreshGrants(server)).toHaveLength(1);
  });

  it('turns a refused refresh into the typed "refused" problem (exit 4)', async () => {
    const { resolve } = await setup({ tokens: stored({ expiresAt: NOW - 10 }), refresh: 'invalid_grant' });
    await expect(resolve()).rejects.toMatchObject({
      problem: 'refused',
      exitCode: 4,
      code: 'refresh_refused',
      message: expect.stringMatching(/refused to renew the session \(invalid_grant: grant revoked\)/),
    });
  });

  it('records a refused refresh, so the session counts as logged out without asking the server again', async () => {
    const { server, deps, resolve } = await setup({ tokens: stored({ expiresAt: NOW - 10 }), refresh: 'invalid_grant' });
    await expect(resolve()).rejects.toMatchObject({ problem: 'refused' });
    expect((await deps.state.profile('default'))?.sessionRefused).toMatchObject({ at: NOW, detail: expect.stringMatching(/invalid_grant/) });
    const asked = server.asked.length;
    await expect(resolve()).rejects.toMatchObject({ problem: 'refused', exitCode: 4, hint: expect.stringMatching(/school login/) });
    expect(server.asked).toHaveLength(asked);
    // A new login (a new saved profile) ends it.
    await deps.state.saveProfile('default', profile);
    server.refresh = 'rotate';
    await expect(resolve()).resolves.toMatchObject({ source: 'keychain' });
  });

  it('refreshes early for --min-ttl, and not when the token lasts long enough', async () => {
    const { server, deps } = await setup({ tokens: stored({ expiresAt: NOW + 200 }) });
    const withTtl = async (minTtlSeconds: number) => resolveSession(deps, await resolveTarget(deps.state, { env: deps.env }), { minTtlSeconds });
    expect((await withTtl(100))?.accessToken).toBe('at-stored-0123456789');
    expect(refreshGrants(server)).toHaveLength(0);
    expect((await withTtl(300))?.accessToken).not.toBe('at-stored-0123456789');
    expect(refreshGrants(server)).toHaveLength(1);
  });

  it('refuses tokens stored for another issuer', async () => {
    const { resolve } = await setup({ tokens: stored({ issuer: 'https://other.example' }) });
    await expect(resolve()).rejects.toMatchObject({ problem: 'wrong_issuer', exitCode: 4 });
  });

  describe('headless CI mode', () => {
    const ci = { SCHOOL_REFRESH_TOKEN: 'seed-0123456789abcdef', SCHOOL_CLIENT_ID: 'cid-ci', SCHOOL_BASE_URL: API };

    it('spends the seed once, says so when the server rotated it, and reuses the kept tokens', async () => {
      const { server, notices, resolve } = await setup({ env: ci, keychain: 'missing' });
      const first = await resolve();
      expect(first).toMatchObject({ source: 'env', issuer: AS });
      expect(refreshGrants(server).map((g) => g.params.get('refresh_token'))).toEqual(['seed-0123456789abcdef']);
      expect(notices.join('')).toMatch(/SCHOOL_REFRESH_TOKEN is now spent/);

      const second = await resolve();
      expect(second?.accessToken).toBe(first?.accessToken);
      expect(refreshGrants(server)).toHaveLength(1);
      expect(notices).toHaveLength(1);
    });

    it('says nothing when the server does not rotate', async () => {
      const { notices, resolve } = await setup({ env: ci, refresh: 'keep' });
      await resolve();
      expect(notices).toEqual([]);
    });

    it('names what to do when the seed is spent: another job may have spent it, and the ways to run jobs in parallel', async () => {
      const { resolve } = await setup({ env: ci, refresh: 'invalid_grant' });
      const refused = resolve();
      await expect(refused).rejects.toMatchObject({ problem: 'refused', exitCode: 4, hint: expect.stringMatching(/mint a new seed/) });
      await expect(refused).rejects.toMatchObject({
        hint: expect.stringMatching(/another job running with the same seed may have spent it.*each job its own seed.*school login --confidential/),
      });
    });
  });
});

describe('a refresh of tokens bound to a key (DPoP)', () => {
  it('carries the nonce the token endpoint gave an earlier process, and remembers the one it gives now', async () => {
    const server = fakeAuthServer();
    server.refresh = 'rotate';
    const proofs: string[] = [];
    // The fake token endpoint, giving a DPoP-Nonce with its answers as a DPoP server does.
    const http = {
      async request(req: HttpRequest) {
        if (req.headers?.dpop) proofs.push(req.headers.dpop);
        const res = await server.request(req);
        return new URL(String(req.url)).pathname === '/token' ? { ...res, headers: { ...res.headers, 'dpop-nonce': 'n-as-now' } } : res;
      },
    };
    const deps = fakeDeps({ http, now: NOW * 1000 });
    const key = await createDpopKey();
    await deps.state.saveProfile('default', profile);
    await deps.state.saveTokens('default', profile.storage, stored({ expiresAt: NOW + 30, tokenType: 'DPoP', dpopKey: key }));
    const origin = new URL(AS).origin;
    await deps.state.saveDpopNonce(origin, 'n-as-earlier', NOW - 10);

    await resolveSession(deps, await resolveTarget(deps.state, { env: deps.env }));
    expect(refreshGrants(server)).toHaveLength(1);
    expect(proofs).toHaveLength(1);
    const payload = JSON.parse(Buffer.from(proofs[0]!.split('.')[1]!, 'base64url').toString()) as { nonce?: string; htu: string };
    expect(payload).toMatchObject({ nonce: 'n-as-earlier', htu: `${AS}/token` });
    expect(await deps.state.dpopNonce(origin, NOW)).toBe('n-as-now');
    expect((await deps.state.readTokens('default', profile)).dpopKey).toEqual(key);
  });
});
