import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { authorizationUrl, discover, eventsOf, insecure, loginOverHttp, obtainTokens, register, type RegisteredClient } from './testkit.js';

let sb: Sandbox;
let as: oauth.AuthorizationServer;
let pub: RegisteredClient;

beforeAll(async () => {
  sb = await startSandbox({ quiet: true });
  as = await discover(sb.issuer);
  pub = await register(as);
});
afterAll(async () => {
  await sb?.close();
});

async function refresh(reg: RegisteredClient, refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, refreshToken, insecure);
  return oauth.processRefreshTokenResponse(as, reg.client, response);
}

async function tokenError(promise: Promise<unknown>) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.ResponseBodyError);
  return (err as oauth.ResponseBodyError).error;
}

describe('token endpoint', () => {
  it('exchanges a code for opaque access and refresh tokens carrying the granted scopes', async () => {
    const tokens = await obtainTokens(as, pub, 'openid profile courses:read');
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.access_token.split('.')).toHaveLength(1); // opaque, not a JWT
    expect(typeof tokens.refresh_token).toBe('string');
    expect(tokens.expires_in).toBeGreaterThan(3500);
    expect(tokens.scope?.split(' ').sort()).toEqual(['courses:read', 'openid', 'profile']);
    const event = eventsOf(sb, 'token').at(-1);
    expect(event).toMatchObject({ grant_type: 'authorization_code', client_id: pub.client.client_id, ok: true });
    const serialized = JSON.stringify(sb.events);
    expect(serialized).not.toContain(tokens.access_token);
    expect(serialized).not.toContain(tokens.refresh_token);
  });

  it('issues no refresh token to a client that did not register the refresh_token grant', async () => {
    const codeOnly = await register(as, { grant_types: ['authorization_code'] });
    const tokens = await obtainTokens(as, codeOnly, 'openid courses:read');
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('refuses a replayed code and a wrong code_verifier with invalid_grant', async () => {
    const redirectUri = 'http://127.0.0.1:8765/callback';
    const req = await authorizationUrl(as, pub.client, redirectUri, 'openid courses:read');
    const params = oauth.validateAuthResponse(as, pub.client, await loginOverHttp(req.url), req.state);
    expect(
      await tokenError(
        oauth.processAuthorizationCodeResponse(as, pub.client, await oauth.authorizationCodeGrantRequest(as, pub.client, pub.auth, params, redirectUri, oauth.generateRandomCodeVerifier(), insecure)),
      ),
    ).toBe('invalid_grant');
    // A failed verifier check does not spend the code; the right verifier then works once.
    const first = await oauth.authorizationCodeGrantRequest(as, pub.client, pub.auth, params, redirectUri, req.verifier, insecure);
    expect((await oauth.processAuthorizationCodeResponse(as, pub.client, first)).access_token).toBeTruthy();
    const replay = await oauth.authorizationCodeGrantRequest(as, pub.client, pub.auth, params, redirectUri, req.verifier, insecure);
    expect(await tokenError(oauth.processAuthorizationCodeResponse(as, pub.client, replay))).toBe('invalid_grant');
  });

  it('works for a confidential client authenticating with client_secret_post', async () => {
    const conf = await register(as, { token_endpoint_auth_method: 'client_secret_post' });
    expect(conf.secret).toBeTruthy();
    const tokens = await obtainTokens(as, conf, 'openid students:read');
    expect(tokens.access_token).toBeTruthy();
    const wrong = { ...conf, auth: oauth.ClientSecretPost('not-the-secret') };
    expect(await tokenError(refresh(wrong, tokens.refresh_token!))).toBe('invalid_client');
    const ok = await refresh(conf, tokens.refresh_token!);
    expect(ok.access_token).toBeTruthy();
  });
});

describe('refresh tokens', () => {
  it('rotate by default: each refresh returns a new refresh token and the spent one is refused', async () => {
    const tokens = await obtainTokens(as, pub, 'openid courses:read');
    const before = eventsOf(sb, 'token').filter((e) => e.grant_type === 'refresh_token').length;
    const second = await refresh(pub, tokens.refresh_token!);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.access_token).not.toBe(tokens.access_token);
    expect(second.scope?.split(' ').sort()).toEqual(['courses:read', 'openid']);
    expect(await tokenError(refresh(pub, tokens.refresh_token!))).toBe('invalid_grant');
    const grants = eventsOf(sb, 'token')
      .filter((e) => e.grant_type === 'refresh_token')
      .slice(before);
    expect(grants.map((e) => e.ok)).toEqual([true, false]);
    expect(grants[1]).toMatchObject({ error: 'invalid_grant', client_id: pub.client.client_id });
  });

  it('can be kept stable with rotation off', async () => {
    const stable = await startSandbox({ quiet: true, rotateRefreshTokens: false });
    try {
      const sas = await discover(stable.issuer);
      const reg = await register(sas);
      const tokens = await obtainTokens(sas, reg, 'openid courses:read');
      for (let i = 0; i < 3; i++) {
        const r = await oauth.processRefreshTokenResponse(sas, reg.client, await oauth.refreshTokenGrantRequest(sas, reg.client, reg.auth, tokens.refresh_token!, insecure));
        expect(r.access_token).toBeTruthy();
        expect(r.refresh_token ?? tokens.refresh_token).toBe(tokens.refresh_token);
      }
      expect(eventsOf(stable, 'token').filter((e) => e.grant_type === 'refresh_token' && e.ok)).toHaveLength(3);
    } finally {
      await stable.close();
    }
  });
});

describe('resource indicators and introspection', () => {
  it('binds the token to the API when resource is sent, and introspection shows it as aud', async () => {
    const tokens = await obtainTokens(as, pub, 'openid courses:read', { resource: sb.baseUrl });
    const info = await sb.introspect(tokens.access_token);
    expect(info).toMatchObject({ active: true, aud: sb.baseUrl, client_id: pub.client.client_id, sub: sb.users[0]!.sub });
    expect(String(info.scope).split(' ').sort()).toEqual(['courses:read', 'openid']);
    expect(typeof info.exp).toBe('number');
    expect(eventsOf(sb, 'token').at(-1)).toMatchObject({ resource: sb.baseUrl, ok: true });
  });

  it('accepts the resource identifier with a trailing slash, at the token and authorization endpoints', async () => {
    const a = await obtainTokens(as, pub, 'openid courses:read', { resource: `${sb.baseUrl}/` });
    expect((await sb.introspect(a.access_token)).aud).toBe(sb.baseUrl);
    const b = await obtainTokens(as, pub, 'openid courses:read', { authorizeResource: `${sb.baseUrl}/`, resource: sb.baseUrl });
    expect((await sb.introspect(b.access_token)).aud).toBe(sb.baseUrl);
  });

  it('refuses a resource that is not the API', async () => {
    const redirectUri = 'http://127.0.0.1:8765/callback';
    const req = await authorizationUrl(as, pub.client, redirectUri, 'openid courses:read');
    const params = oauth.validateAuthResponse(as, pub.client, await loginOverHttp(req.url), req.state);
    const response = await oauth.authorizationCodeGrantRequest(as, pub.client, pub.auth, params, redirectUri, req.verifier, {
      ...insecure,
      additionalParameters: { resource: 'http://127.0.0.1:1/other-api' },
    });
    expect(await tokenError(oauth.processAuthorizationCodeResponse(as, pub.client, response))).toBe('invalid_target');
  });

  it('shows refresh tokens too, and lets a client introspect its own tokens only', async () => {
    const tokens = await obtainTokens(as, pub, 'openid courses:read');
    expect(await sb.introspect(tokens.refresh_token!)).toMatchObject({ active: true, client_id: pub.client.client_id });
    const own = await oauth.processIntrospectionResponse(as, pub.client, await oauth.introspectionRequest(as, pub.client, pub.auth, tokens.access_token, insecure));
    expect(own.active).toBe(true);
    const other = await register(as);
    const foreign = await oauth.processIntrospectionResponse(as, other.client, await oauth.introspectionRequest(as, other.client, other.auth, tokens.access_token, insecure));
    expect(foreign.active).toBe(false);
    expect(eventsOf(sb, 'introspect').length).toBeGreaterThanOrEqual(3);
  });
});

describe('revocation (RFC 7009)', () => {
  it('revokes an access token', async () => {
    const tokens = await obtainTokens(as, pub, 'openid courses:read');
    expect((await sb.introspect(tokens.access_token)).active).toBe(true);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, pub.client, pub.auth, tokens.access_token, {
        ...insecure,
        additionalParameters: { token_type_hint: 'access_token' },
      }),
    );
    expect((await sb.introspect(tokens.access_token)).active).toBe(false);
    expect(eventsOf(sb, 'revoke').at(-1)).toMatchObject({
      client_id: pub.client.client_id,
      token_type_hint: 'access_token',
      ok: true,
      revoked: 'access_token',
    });
    const api = await fetch(`${sb.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(api.status).toBe(401);
  });

  it('revokes a refresh token (and it can no longer be used)', async () => {
    const tokens = await obtainTokens(as, pub, 'openid courses:read');
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, pub.client, pub.auth, tokens.refresh_token!, insecure));
    expect((await sb.introspect(tokens.refresh_token!)).active).toBe(false);
    expect(eventsOf(sb, 'revoke').at(-1)).toMatchObject({ ok: true, revoked: 'refresh_token' });
    expect(await tokenError(refresh(pub, tokens.refresh_token!))).toBe('invalid_grant');
  });

  it('accepts a plain form POST of token and client_id, as the interface documents', async () => {
    const tokens = await obtainTokens(as, pub, 'openid courses:read');
    const res = await fetch(as.revocation_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: pub.client.client_id }),
    });
    expect(res.status).toBe(200);
    expect((await sb.introspect(tokens.access_token)).active).toBe(false);
  });
});
