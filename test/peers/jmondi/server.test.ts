// Checks the second authorization server itself with a plain oauth4webapi client: the
// CLI's tests against it are only as good as the server is right.
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { driveLogin } from '@school/sandbox/browser-driver';
import { callbackListener } from '@school/sandbox/testkit';
import { PEER_DEFAULT_SCOPE, PEER_ROUTES, type Peer, startPeer } from './server.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

let peer: Peer;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  peer = await startPeer({ quiet: true, accessTokenTtl: 60 });
  const issuer = new URL(peer.issuer);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
afterAll(async () => {
  await peer?.close();
});

interface Registered {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
}

async function register(method: 'none' | 'client_secret_basic' | 'client_secret_post' = 'none', redirectUri = REDIRECT_URI): Promise<Registered> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'peer test client',
      application_type: 'native',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: method,
      grant_types: ['authorization_code', 'refresh_token'],
    },
    insecure,
  );
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  const secret = typeof client.client_secret === 'string' ? client.client_secret : undefined;
  const auth = method === 'client_secret_basic' ? oauth.ClientSecretBasic(secret!) : method === 'client_secret_post' ? oauth.ClientSecretPost(secret!) : oauth.None();
  return { client, auth, secret };
}

async function authorizationRequest(reg: Registered, scope: string | undefined, redirectUri = REDIRECT_URI) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: reg.client.client_id,
    redirect_uri: redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...(scope === undefined ? {} : { scope }),
  }).toString();
  return { url, verifier, state };
}

// Walks the sign-in and consent pages over plain HTTP; returns where the server redirects last.
async function walk(start: URL, { password = 'lovelace', decision = 'approve' } = {}): Promise<URL> {
  let res = await fetch(start, { redirect: 'manual' });
  for (let hops = 0; hops < 10; hops++) {
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, start);
      if (next.origin !== start.origin) return next;
      res = await fetch(next, { redirect: 'manual' });
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${html}`);
    const action = new URL(/action="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&'), start);
    const body: Record<string, string> = html.includes('name="username"') ? { username: 'ada', password } : { decision };
    if (html.includes('id="sign-in-error"')) throw new Error('sign-in failed');
    res = await fetch(action, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
  }
  throw new Error('too many redirects');
}

async function obtainTokens(reg: Registered, scope: string | undefined) {
  const req = await authorizationRequest(reg, scope);
  const params = oauth.validateAuthResponse(as, reg.client, await walk(req.url), req.state);
  const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, req.verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, reg.client, response);
}

describe('the @jmondi/oauth2-server peer', () => {
  it('publishes RFC 8414 and RFC 9728 metadata on its own path layout, and no OpenID discovery', async () => {
    expect(as.issuer).toBe(peer.issuer);
    expect(as.token_endpoint).toBe(peer.issuer + PEER_ROUTES.token);
    expect(as.userinfo_endpoint).toBeUndefined();
    expect(as.authorization_response_iss_parameter_supported).toBeUndefined();
    expect(as.scopes_supported).not.toContain('openid');
    expect((await fetch(`${peer.issuer}/.well-known/openid-configuration`)).status).toBe(404);
    const prm = (await (await fetch(`${peer.baseUrl}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(prm.authorization_servers).toEqual([peer.issuer]);
  });

  it('registers loopback clients only', async () => {
    await expect(register('none', 'https://example.com/callback')).rejects.toMatchObject({ error: 'invalid_redirect_uri' });
    const reg = await register('none');
    expect(reg.secret).toBeUndefined();
    expect(peer.events.at(-1)).toMatchObject({ type: 'register', token_endpoint_auth_method: 'none' });
  });

  it('runs the code flow with PKCE: no ID token, no iss, JWT access token, refresh with rotation, revocation', async () => {
    const reg = await register('none');
    const req = await authorizationRequest(reg, 'account:read courses:read');
    const callback = await walk(req.url);
    expect(callback.searchParams.has('iss')).toBe(false);
    const params = oauth.validateAuthResponse(as, reg.client, callback, req.state);
    const wrong = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, oauth.generateRandomCodeVerifier(), insecure);
    await expect(oauth.processAuthorizationCodeResponse(as, reg.client, wrong)).rejects.toMatchObject({ error: 'invalid_grant' });
    const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, req.verifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, reg.client, response);
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.access_token.split('.')).toHaveLength(3);
    expect(tokens.scope).toBe('account:read courses:read');
    expect(typeof tokens.refresh_token).toBe('string');

    const me = await fetch(`${peer.baseUrl}/api/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ username: 'ada' });

    const refreshed = await oauth.processRefreshTokenResponse(as, reg.client, await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, tokens.refresh_token!, insecure));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(await peer.tokenState(tokens.refresh_token!)).toBe('revoked');
    expect(await peer.tokenState(refreshed.access_token)).toBe('active');
    const replay = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, tokens.refresh_token!, insecure);
    expect(replay.status).toBe(400);

    // Revocation without a hint still finds the refresh token (RFC 7009 §2.1).
    const revoked = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshed.refresh_token!, client_id: reg.client.client_id }),
    });
    expect(revoked.status).toBe(200);
    expect(await peer.tokenState(refreshed.refresh_token!)).toBe('revoked');
    const after = await fetch(`${peer.baseUrl}/api/me`, { headers: { authorization: `Bearer ${refreshed.access_token}` } });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token".*resource_metadata=/);
  });

  it('sends authorization errors back to a known client, and shows them for an unknown one', async () => {
    const reg = await register('none');
    const bad = await authorizationRequest(reg, 'openid account:read');
    const back = await walk(bad.url);
    expect(back.origin).toBe(new URL(REDIRECT_URI).origin);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('state')).toBe(bad.state);
    bad.url.searchParams.set('client_id', 'nobody');
    const shown = await fetch(bad.url, { redirect: 'manual' });
    expect(shown.status).toBe(400);
    expect(await shown.text()).toMatch(/invalid_client/);
  });

  it('serves confidential clients with client_secret_basic, and the default scope when none is asked', async () => {
    const reg = await register('client_secret_basic');
    expect(typeof reg.secret).toBe('string');
    const tokens = await obtainTokens(reg, undefined);
    expect(tokens.scope).toBe(PEER_DEFAULT_SCOPE);
    const courses = await fetch(`${peer.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(courses.status).toBe(403);
    expect(courses.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="courses:read"/);
    expect((await fetch(`${peer.baseUrl}/api/me`)).status).toBe(401);
    const introspected = await oauth.processIntrospectionResponse(as, reg.client, await oauth.introspectionRequest(as, reg.client, reg.auth, tokens.access_token, insecure));
    expect(introspected).toMatchObject({ active: true, sub: peer.users[0]!.id });
  });

  it('can be completed by the headless browser driver', async () => {
    const listener = await callbackListener();
    try {
      const reg = await register('none', listener.redirectUri);
      const req = await authorizationRequest(reg, 'account:read', listener.redirectUri);
      const result = await driveLogin(req.url.href);
      expect(new URL(result.finalUrl).origin).toBe(new URL(listener.redirectUri).origin);
      const callback = await listener.next();
      expect(callback.searchParams.get('state')).toBe(req.state);
      expect(callback.searchParams.has('code')).toBe(true);
    } finally {
      await listener.close();
    }
  });

  it('never records a token, code or secret in its events', async () => {
    const reg = await register('client_secret_post');
    const tokens = await obtainTokens(reg, 'courses:read');
    const serialized = JSON.stringify(peer.events);
    expect(serialized).not.toContain(tokens.access_token);
    expect(serialized).not.toContain(tokens.refresh_token!);
    expect(serialized).not.toContain(reg.secret!);
  });
});
