import { describe, expect, it } from 'vitest';
import { cancelPendingLogin } from '../../src/login/background.js';
import { stillThisLogin } from '../../src/login/orchestrator.js';
import { type LoginHooks, completeLogin, prepareLogin } from '../../src/login/transaction.js';
import { profileAccount } from '../../src/state/credential-store.js';
import { API, AS, fakeAuthServer } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const REDIRECT_URI = 'http://127.0.0.1:5555/callback';
const request = { profile: 'default', baseUrl: API, timeoutSeconds: 300, confidential: false, insecureStorage: false };

function setup() {
  const server = fakeAuthServer();
  const deps = fakeDeps({ http: server, now: 1_800_000_000_000 });
  const notices: string[] = [];
  const hooks: LoginHooks = { notify: (t) => notices.push(t), listen: async () => ({ redirectUri: REDIRECT_URI }) };
  return { server, deps, notices, hooks };
}

const redirectFor = (p: { redirectUri: string; state: string }, overrides: Record<string, string> = {}) =>
  new URL(`${p.redirectUri}?${new URLSearchParams({ code: 'code-0123456789', state: p.state, iss: AS, ...overrides })}`);

describe('login as a transaction', () => {
  it('prepares a login that another process can load from the repository and complete', async () => {
    const { server, deps, hooks } = setup();
    const pending = await prepareLogin(deps, request, hooks);
    const url = new URL(pending.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    // offline_access is advertised, so it is asked for beside the defaults; openid brings a nonce.
    expect(url.searchParams.get('scope')).toBe('openid offline_access profile email courses:read');
    expect(url.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    // Offline access is asked with prompt=consent (OpenID Connect Core §11).
    expect(url.searchParams.get('prompt')).toBe('consent');

    // What a detached listener would do: load the transaction by profile name and finish it.
    const loaded = await deps.state.pendingLogin('default');
    expect(loaded).toEqual(pending);
    const result = await completeLogin(deps, loaded!, redirectFor(loaded!));

    expect(result.profile).toMatchObject({ baseUrl: API, issuer: AS, clientId: pending.clientId, storage: 'keychain', user: { name: 'Ada Lovelace' } });
    expect(result.user).toBe('Ada Lovelace ada@example.edu');
    const code = server.grants.find((g) => g.grantType === 'authorization_code');
    expect(code?.params.get('code_verifier')).toBe(pending.codeVerifier);
    expect((await deps.state.readTokens('default', result.profile)).accessToken).toMatch(/^at-/);
    // Ending the transaction is the caller's, once it has recorded the outcome.
    await deps.state.removePendingLogin('default', 'keychain');
    expect(await deps.state.pendingLogin('default')).toBeUndefined();
  });

  it.each<{ name: string; overrides: Record<string, string>; withoutCode?: boolean; code: string }>([
    { name: 'a state that is not the one sent', overrides: { state: 'forged-state' }, code: 'invalid_callback' },
    { name: 'an issuer that is not the server', overrides: { iss: 'https://evil.example' }, code: 'invalid_callback' },
    { name: 'an error the server sent back', overrides: { error: 'access_denied' }, withoutCode: true, code: 'access_denied' },
  ])('refuses $name, storing nothing', async ({ overrides, withoutCode, code }) => {
    const { server, deps, hooks } = setup();
    const pending = await prepareLogin(deps, request, hooks);
    const redirect = redirectFor(pending, overrides);
    if (withoutCode) redirect.searchParams.delete('code');
    await expect(completeLogin(deps, pending, redirect)).rejects.toMatchObject({ code });
    expect(server.grants).toEqual([]);
    expect(await deps.state.profile('default')).toBeUndefined();
  });

  it('revokes the new tokens when they cannot be stored', async () => {
    const { server, deps, hooks } = setup();
    const pending = await prepareLogin(deps, request, hooks);
    const account = profileAccount(deps.paths.configDir, 'default');
    const set = deps.keychainStore.set.bind(deps.keychainStore);
    deps.keychainStore.set = async (name, secret) => {
      if (name === account) throw new Error('The OS keychain failed: the keyring is locked.');
      return set(name, secret);
    };
    await expect(completeLogin(deps, pending, redirectFor(pending))).rejects.toThrow(/keyring is locked/);
    expect(server.revoked).toHaveLength(2);
    expect(server.revoked.every((t) => /^(at|rt)-/.test(t))).toBe(true);
    expect(await deps.state.profile('default')).toBeUndefined();
  });

  it('stores nothing for a background login cancelled before its tokens came, and revokes them', async () => {
    const { server, deps, hooks } = setup();
    const pending = await prepareLogin(deps, { ...request }, { ...hooks, listen: async () => ({ redirectUri: REDIRECT_URI, listenerPid: 4242 }) });
    const record = (await deps.state.pendingLoginRecord('default'))!;
    const stillWanted = stillThisLogin(deps, record);
    expect(await stillWanted()).toBe(true);
    await cancelPendingLogin(deps, 'default', { alive: () => false, isListener: async () => false, stop: async () => undefined, sleep: async () => undefined });
    await expect(completeLogin(deps, pending, redirectFor(pending), stillWanted)).rejects.toMatchObject({ code: 'login_failed', message: expect.stringMatching(/cancelled .*nothing was stored/) });
    expect(await deps.state.profile('default')).toBeUndefined();
    expect(server.revoked).toHaveLength(2);
  });

  it('stores nothing for a background login a newer one replaced', async () => {
    const { deps, hooks } = setup();
    const first = await prepareLogin(deps, request, { ...hooks, listen: async () => ({ redirectUri: REDIRECT_URI, listenerPid: 4242 }) });
    const stillWanted = stillThisLogin(deps, (await deps.state.pendingLoginRecord('default'))!);
    await prepareLogin(deps, request, { ...hooks, listen: async () => ({ redirectUri: REDIRECT_URI, listenerPid: 4343 }) });
    expect(await stillWanted()).toBe(false);
    await expect(completeLogin(deps, first, redirectFor(first), stillWanted)).rejects.toMatchObject({ code: 'login_failed' });
    expect(await deps.state.profile('default')).toBeUndefined();
  });

  it('ends the grant a new login replaces, and reuses the saved client registration', async () => {
    const { server, deps, hooks } = setup();
    const first = await prepareLogin(deps, request, hooks);
    const firstResult = await completeLogin(deps, first, redirectFor(first));
    const replaced = (await deps.state.readTokens('default', firstResult.profile)).refreshToken;

    const second = await prepareLogin(deps, request, hooks);
    expect(second.clientId).toBe(first.clientId);
    await completeLogin(deps, second, redirectFor(second));
    expect(server.revoked).toEqual([replaced]);
    expect(server.asked.filter((a) => a === `POST ${AS}/register`)).toHaveLength(1);
  });

  it("keeps a confidential client's secret in the store and authenticates the exchange with it", async () => {
    const { server, deps, hooks } = setup();
    const pending = await prepareLogin(deps, { ...request, confidential: true }, hooks);
    expect(JSON.stringify(await deps.state.profiles())).not.toMatch(/secret-/);
    await completeLogin(deps, pending, redirectFor(pending));
    const exchange = server.grants.find((g) => g.grantType === 'authorization_code');
    expect(exchange?.params.get('client_secret')).toMatch(/^secret-/);
    expect([...deps.keychainStore.entries.values()].some((v) => /^secret-/.test(v))).toBe(true);
  });

  it.each([
    { name: 'takes userinfo for the user the ID token names', userinfo: 'u-ada', user: 'Ada Lovelace ada@example.edu' },
    { name: 'refuses userinfo for another user than the ID token names, keeping the ID token claims', userinfo: 'u-mallory', user: 'Ada (from the ID token)' },
  ])('$name', async ({ userinfo, user }) => {
    const { server, deps, hooks } = setup();
    server.idTokenSubject = 'u-ada';
    server.userinfoSubject = userinfo;
    const pending = await prepareLogin(deps, request, hooks);
    server.idTokenNonce = new URL(pending.authorizationUrl).searchParams.get('nonce') ?? undefined;
    const result = await completeLogin(deps, pending, redirectFor(pending));
    expect(result.user).toBe(user);
    expect((await deps.state.readTokens('default', result.profile)).subject).toBe('u-ada');
  });

  it.each([
    { name: 'another nonce than the one sent', nonce: 'not-the-nonce-sent' },
    { name: 'no nonce at all', nonce: undefined },
  ])('refuses an ID token with $name, storing nothing', async ({ nonce }) => {
    const { server, deps, hooks } = setup();
    server.idTokenSubject = 'u-ada';
    server.idTokenNonce = nonce;
    const pending = await prepareLogin(deps, request, hooks);
    await expect(completeLogin(deps, pending, redirectFor(pending))).rejects.toThrow(/nonce/);
    expect(await deps.state.profiles()).toEqual({});
  });

  it('says which asked scopes the server did not grant', async () => {
    const { deps, hooks } = setup();
    const pending = await prepareLogin(deps, { ...request, scopes: ['courses:read', 'profile'] }, hooks);
    pending.scopes.push('courses:write');
    const result = await completeLogin(deps, pending, redirectFor(pending));
    expect(result.warnings).toEqual(['The server granted fewer scopes than asked: courses:write was not granted.']);
  });
});

describe('choosing scopes at login', () => {
  const ALL = ['openid', 'profile', 'email', 'offline_access', 'courses:read', 'courses:write', 'students:read'];
  const scopeOf = (p: { authorizationUrl: string }) => new URL(p.authorizationUrl).searchParams.get('scope');

  async function loggedIn(granted: string) {
    const s = setup();
    s.server.metadata.scopes_supported = ALL;
    s.server.grantedScope = granted;
    const first = await prepareLogin(s.deps, request, s.hooks);
    await completeLogin(s.deps, first, redirectFor(first));
    return s;
  }

  it('--add-scope asks for the scopes the profile holds now plus the added ones', async () => {
    const { deps, hooks } = await loggedIn('openid profile email courses:read students:read');
    const pending = await prepareLogin(deps, { ...request, addScopes: ['courses:write'] }, hooks);
    expect(scopeOf(pending)).toBe('openid offline_access profile email courses:read students:read courses:write');
  });

  it('--add-scope without a profile asks for the default set plus the added ones', async () => {
    const { server, deps, hooks } = setup();
    server.metadata.scopes_supported = ALL;
    const pending = await prepareLogin(deps, { ...request, addScopes: ['courses:write'] }, hooks);
    expect(scopeOf(pending)).toBe('openid offline_access profile email courses:read students:read courses:write');
  });

  it('--scope replaces the default set, openid and offline_access still added', async () => {
    const { server, deps, hooks } = setup();
    server.metadata.scopes_supported = ALL;
    const pending = await prepareLogin(deps, { ...request, scopes: ['courses:read'] }, hooks);
    expect(scopeOf(pending)).toBe('openid offline_access courses:read');
  });

  it('refuses a misspelt --add-scope with the corrected --add-scope command', async () => {
    const { server, deps, hooks } = setup();
    server.metadata.scopes_supported = ALL;
    const retryCommand = (scopes: string[], flag: string) => `school login ${flag} ${scopes.join(',')}`;
    await expect(prepareLogin(deps, { ...request, addScopes: ['cources:write'], retryCommand }, hooks)).rejects.toMatchObject({
      code: 'invalid_scope',
      hint: 'school login --add-scope courses:write',
    });
  });

  it('says which scopes a login dropped, with the command that asks for them again', async () => {
    const { server, deps, hooks } = await loggedIn('openid profile courses:read courses:write');
    server.grantedScope = 'openid courses:read';
    const pending = await prepareLogin(deps, { ...request, scopes: ['courses:read'] }, hooks);
    const result = await completeLogin(deps, pending, redirectFor(pending));
    expect(result.warnings).toContain('This login holds fewer scopes than the profile had: profile, courses:write were dropped. `school login --add-scope profile,courses:write` asks for them again.');
  });

  it('says nothing of dropped scopes when the login keeps them all', async () => {
    const { server, deps, hooks } = await loggedIn('openid courses:read');
    server.grantedScope = 'openid courses:read courses:write';
    const pending = await prepareLogin(deps, { ...request, addScopes: ['courses:write'] }, hooks);
    const result = await completeLogin(deps, pending, redirectFor(pending));
    expect(result.warnings).toEqual([]);
  });

  it('keeps the asked scopes as the granted ones when the token response names none', async () => {
    const { server, deps, hooks } = setup();
    server.metadata.scopes_supported = ALL;
    server.grantedScope = null;
    const pending = await prepareLogin(deps, { ...request, scopes: ['courses:read'] }, hooks);
    const result = await completeLogin(deps, pending, redirectFor(pending));
    expect((await deps.state.readTokens('default', result.profile)).scope).toBe('openid offline_access courses:read');
  });
});

describe('a saved client registration', () => {
  const failedOrEarly = (server: ReturnType<typeof setup>['server']) => server.grants.filter((g) => g.params.get('code') !== 'code-0123456789');
  const registrations = (server: ReturnType<typeof setup>['server']) => server.asked.filter((a) => a === `POST ${AS}/register`).length;

  it('is trusted: a second login sends no grant before its code exchange, only the authorization request', async () => {
    const { server, deps, hooks, notices } = setup();
    const first = await prepareLogin(deps, request, hooks);
    await completeLogin(deps, first, redirectFor(first));
    const second = await prepareLogin(deps, request, hooks);
    await completeLogin(deps, second, redirectFor(second));
    expect(second.clientId).toBe(first.clientId);
    expect(server.grants.map((g) => g.grantType)).toEqual(['authorization_code', 'authorization_code']);
    expect(failedOrEarly(server)).toEqual([]);
    expect(server.asked.filter((a) => a.startsWith(`GET ${AS}/authorize?`))).toHaveLength(1);
    expect(registrations(server)).toBe(1);
    expect(notices.join('')).toBe('');
  });

  it('is forgotten and made again, saying so, when the authorization endpoint no longer knows it', async () => {
    const { server, deps, hooks, notices } = setup();
    const first = await prepareLogin(deps, request, hooks);
    await completeLogin(deps, first, redirectFor(first));
    server.forgotten.add(first.clientId);
    const second = await prepareLogin(deps, request, hooks);
    expect(second.clientId).not.toBe(first.clientId);
    expect(new URL(second.authorizationUrl).searchParams.get('client_id')).toBe(second.clientId);
    expect(notices.join('')).toContain('The server no longer knows the saved client registration; it was forgotten, registering again.');
    expect(registrations(server)).toBe(2);
    expect(server.grants.map((g) => g.grantType)).toEqual(['authorization_code']);
    await completeLogin(deps, second, redirectFor(second));
  });

  it.each<{ where: string; forget: boolean; redirect: Record<string, string> }>([
    { where: 'at the token endpoint', forget: true, redirect: {} },
    { where: 'on the redirect', forget: false, redirect: { error: 'unauthorized_client', code: '' } },
  ])('is forgotten when the server refuses it $where, and the error says the next login registers again', async ({ forget, redirect }) => {
    const { server, deps, hooks } = setup();
    const first = await prepareLogin(deps, request, hooks);
    await completeLogin(deps, first, redirectFor(first));
    const second = await prepareLogin(deps, request, hooks);
    if (forget) server.forgotten.add(second.clientId);
    const url = redirectFor(second, redirect);
    if (!url.searchParams.get('code')) url.searchParams.delete('code');
    await expect(completeLogin(deps, second, url)).rejects.toMatchObject({
      code: 'invalid_client',
      exitCode: 4,
      message: expect.stringMatching(/it has been forgotten, and the next login registers again\.$/),
    });
    expect(await deps.state.clientRegistration(AS, () => true)).toBeUndefined();
  });
});
