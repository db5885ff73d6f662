// Checks the sandbox variants themselves (their metadata and behaviour) with a plain
// oauth4webapi client, independently of the CLI: a client test against a variant is only
// worth something if the variant is what it claims to be.
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { authorizationUrl, discover, eventsOf, insecure, loginOverHttp, obtainTokens, register, type RegisteredClient } from './testkit.js';
import { FOREIGN_SCOPES, ISSUER_PATH, OTHER_SUBJECT, type SandboxVariant, WITHHELD_SCOPE } from '../src/variants.js';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

async function withSandbox(variants: SandboxVariant[], run: (sb: Sandbox) => Promise<void>) {
  const sb = await startSandbox({ quiet: true, variants });
  try {
    await run(sb);
  } finally {
    await sb.close();
  }
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const res = await fetch(url);
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: res.status, body };
}

async function getJsonWith(url: string, accessToken: string): Promise<unknown> {
  return (await fetch(url, { headers: { authorization: `Bearer ${accessToken}` } })).json();
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

async function refreshWith(as: oauth.AuthorizationServer, reg: RegisteredClient, refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, refreshToken, insecure);
  return oauth.processRefreshTokenResponse(as, reg.client, response);
}

describe('sandbox variants', () => {
  it('plain-oauth2: no userinfo, no OpenID discovery, openid refused, no ID token', async () => {
    await withSandbox(['plain-oauth2'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.userinfo_endpoint).toBeUndefined();
      expect(as.scopes_supported).not.toContain('openid');
      expect(as.scopes_supported).toContain('courses:read');
      expect((await getJson(`${sb.issuer}/.well-known/openid-configuration`)).status).toBe(404);
      const reg = await register(as);
      const tokens = await obtainTokens(as, reg, 'courses:read');
      expect(tokens.id_token).toBeUndefined();
      expect(tokens.scope).toBe('courses:read');
      expect((await fetch(`${sb.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(404);
      const req = await authorizationUrl(as, reg.client, REDIRECT_URI, 'openid courses:read');
      const callback = await loginOverHttp(req.url);
      expect(callback.searchParams.get('error')).toBe('invalid_scope');
    });
  });

  it('no-userinfo: no userinfo endpoint; the ID token carries the profile claims', async () => {
    await withSandbox(['no-userinfo'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.userinfo_endpoint).toBeUndefined();
      expect((await fetch(`${sb.issuer}/api/oauth/userinfo`)).status).toBe(404);
      const tokens = await obtainTokens(as, await register(as), 'openid profile email courses:read');
      expect(oauth.getValidatedIdTokenClaims(tokens)).toMatchObject({ sub: 'usr_1815_ada', name: 'Ada Lovelace', email: 'ada@example.edu' });
    });
  });

  it('no-revocation: no revocation_endpoint, and the old path is gone', async () => {
    await withSandbox(['no-revocation'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.revocation_endpoint).toBeUndefined();
      expect(as.revocation_endpoint_auth_methods_supported).toBeUndefined();
      expect((await fetch(`${sb.issuer}/api/oauth/revoke`, form({ token: 'x' }))).status).toBe(404);
    });
  });

  it('revocation-refuses-access-tokens: unsupported_token_type for access tokens, whatever the order; refresh tokens revoked', async () => {
    await withSandbox(['revocation-refuses-access-tokens'], async (sb) => {
      const as = await discover(sb.issuer);
      const reg = await register(as);
      const revoke = (token: string, hint?: string) => fetch(as.revocation_endpoint!, form({ token, client_id: reg.client.client_id, ...(hint ? { token_type_hint: hint } : {}) }));
      const first = await obtainTokens(as, reg, 'openid courses:read');
      const refused = await revoke(first.access_token, 'access_token');
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('unsupported_token_type');
      expect((await sb.introspect(first.access_token)).active).toBe(true);
      expect((await revoke(first.refresh_token!, 'refresh_token')).status).toBe(200);
      expect((await sb.introspect(first.refresh_token!)).active).toBe(false);
      // Refresh token first: the access token (gone with its grant) is still refused, hint or not.
      const second = await obtainTokens(as, reg, 'openid courses:read');
      expect((await revoke(second.refresh_token!)).status).toBe(200);
      expect((await revoke(second.access_token)).status).toBe(400);
    });
  });

  it('refresh-needs-offline-access: a refresh token only when offline_access is granted', async () => {
    await withSandbox(['refresh-needs-offline-access'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.scopes_supported).toContain('offline_access');
      const reg = await register(as);
      const without = await obtainTokens(as, reg, 'openid courses:read');
      expect(without.refresh_token).toBeUndefined();
      const offline = await obtainTokens(as, reg, 'openid offline_access courses:read');
      expect(typeof offline.refresh_token).toBe('string');
      const refreshed = await refreshWith(as, reg, offline.refresh_token!);
      expect(typeof refreshed.access_token).toBe('string');
      expect(typeof refreshed.refresh_token).toBe('string');
    });
  });

  it('nonce-required: openid without nonce refused; with a nonce the ID token carries it', async () => {
    await withSandbox(['nonce-required'], async (sb) => {
      const as = await discover(sb.issuer);
      const reg = await register(as);
      const bare = await authorizationUrl(as, reg.client, REDIRECT_URI, 'openid courses:read');
      const refused = await loginOverHttp(bare.url);
      expect(refused.searchParams.get('error')).toBe('invalid_request');
      expect(refused.searchParams.get('error_description')).toMatch(/nonce/);
      // Without openid, no nonce is needed.
      expect((await obtainTokens(as, reg, 'courses:read')).access_token).toBeTruthy();
      const nonce = oauth.generateRandomNonce();
      const req = await authorizationUrl(as, reg.client, REDIRECT_URI, 'openid courses:read', { nonce });
      const params = oauth.validateAuthResponse(as, reg.client, await loginOverHttp(req.url), req.state);
      const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, req.verifier, insecure);
      const tokens = await oauth.processAuthorizationCodeResponse(as, reg.client, response, { expectedNonce: nonce, requireIdToken: true });
      expect(oauth.getValidatedIdTokenClaims(tokens)?.nonce).toBe(nonce);
      expect(eventsOf(sb, 'authorize_request').map((e) => e.nonce_sent)).toEqual([false, false, true]);
    });
  });

  it('no-public-clients: none is neither advertised nor accepted; client_secret_post and _basic are', async () => {
    await withSandbox(['no-public-clients'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.token_endpoint_auth_methods_supported).toEqual(['client_secret_post', 'client_secret_basic']);
      await expect(register(as)).rejects.toMatchObject({ error: 'invalid_client_metadata' });
      const post = await register(as, { token_endpoint_auth_method: 'client_secret_post' });
      expect((await obtainTokens(as, post, 'openid courses:read')).access_token).toBeTruthy();
      const basic = await register(as, { token_endpoint_auth_method: 'client_secret_basic' });
      expect((await obtainTokens(as, { ...basic, auth: oauth.ClientSecretBasic(basic.secret!) }, 'openid courses:read')).access_token).toBeTruthy();
    });
  });

  it('basic-auth-only: client_secret_basic alone at every endpoint; client_secret_post refused', async () => {
    await withSandbox(['basic-auth-only'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
      expect(as.revocation_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
      expect(as.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
      await expect(register(as, { token_endpoint_auth_method: 'client_secret_post' })).rejects.toMatchObject({ error: 'invalid_client_metadata' });
      const reg = await register(as, { token_endpoint_auth_method: 'client_secret_basic' });
      const basic = { ...reg, auth: oauth.ClientSecretBasic(reg.secret!) };
      const tokens = await obtainTokens(as, basic, 'openid courses:read');
      expect((await sb.introspect(tokens.access_token)).active).toBe(true);
      await expect(refreshWith(as, { ...reg, auth: oauth.ClientSecretPost(reg.secret!) }, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_client' });
      const revoked = await oauth.revocationRequest(as, reg.client, basic.auth, tokens.refresh_token!, insecure);
      expect(revoked.status).toBe(200);
      expect((await sb.introspect(tokens.refresh_token!)).active).toBe(false);
    });
  });

  it("rotates-public-clients-only: a public client's refresh token rotates, a confidential client's stays and serves again", async () => {
    await withSandbox(['rotates-public-clients-only'], async (sb) => {
      const as = await discover(sb.issuer);
      const publicClient = await register(as);
      const publicTokens = await obtainTokens(as, publicClient, 'openid courses:read');
      const rotated = await refreshWith(as, publicClient, publicTokens.refresh_token!);
      expect(rotated.refresh_token).toBeTruthy();
      expect(rotated.refresh_token).not.toBe(publicTokens.refresh_token);
      await expect(refreshWith(as, publicClient, publicTokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

      const confidential = await register(as, { token_endpoint_auth_method: 'client_secret_post' });
      const tokens = await obtainTokens(as, confidential, 'openid courses:read');
      const first = await refreshWith(as, confidential, tokens.refresh_token!);
      expect(first.refresh_token ?? tokens.refresh_token).toBe(tokens.refresh_token);
      const second = await refreshWith(as, confidential, tokens.refresh_token!);
      expect(second.access_token).not.toBe(first.access_token);
    });
  });

  it('endpoint-auth-registered-only: metadata names client_secret_basic at revocation and introspection, which accept only the registered client_secret_post', async () => {
    await withSandbox(['endpoint-auth-registered-only'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
      expect(as.revocation_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
      expect(as.introspection_endpoint_auth_methods_supported).toEqual(['client_secret_basic']);
      const reg = await register(as, { token_endpoint_auth_method: 'client_secret_post' });
      const asBasic = oauth.ClientSecretBasic(reg.secret!);
      const tokens = await obtainTokens(as, reg, 'openid courses:read');
      // What the metadata names is refused as a client authentication failure...
      const introspectedBasic = await oauth.introspectionRequest(as, reg.client, asBasic, tokens.access_token, insecure);
      expect(introspectedBasic.status).toBe(401);
      expect(await introspectedBasic.json()).toMatchObject({ error: 'invalid_client' });
      const revokedBasic = await oauth.revocationRequest(as, reg.client, asBasic, tokens.refresh_token!, insecure);
      expect(revokedBasic.status).toBe(401);
      expect(await revokedBasic.json()).toMatchObject({ error: 'invalid_client' });
      expect((await sb.introspect(tokens.refresh_token!)).active).toBe(true);
      // ...and the registered method is accepted.
      const introspected = await oauth.introspectionRequest(as, reg.client, reg.auth, tokens.access_token, insecure);
      expect(await introspected.json()).toMatchObject({ active: true });
      const revoked = await oauth.revocationRequest(as, reg.client, reg.auth, tokens.refresh_token!, insecure);
      expect(revoked.status).toBe(200);
      expect((await sb.introspect(tokens.refresh_token!)).active).toBe(false);
    });
  });

  it('non-JSON error answers: an empty 401 from the token endpoint; HTML 400, 200, text 500, text/plain OAuth error from registration', async () => {
    await withSandbox(['token-401-empty'], async (sb) => {
      const res = await fetch(`${sb.issuer}/api/oauth/token`, form({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'y' }));
      expect(res.status).toBe(401);
      expect(await res.text()).toBe('');
    });
    const registration = { client_name: 'x', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' };
    const registerRaw = (sb: Sandbox) =>
      fetch(`${sb.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(registration),
      });
    await withSandbox(['registration-html-400'], async (sb) => {
      const res = await registerRaw(sb);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    });
    await withSandbox(['registration-200'], async (sb) => {
      const res = await registerRaw(sb);
      expect(res.status).toBe(200);
      expect(typeof ((await res.json()) as { client_id: unknown }).client_id).toBe('string');
    });
    await withSandbox(['registration-500'], async (sb) => {
      const res = await registerRaw(sb);
      expect(res.status).toBe(500);
      expect(await res.text()).toBe('Internal Server Error');
    });
    await withSandbox(['registration-error-text-plain'], async (sb) => {
      const res = await registerRaw(sb);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(JSON.parse(await res.text())).toMatchObject({ error: 'invalid_client_metadata' });
    });
  });

  it('unknown-scopes: only foreign scopes advertised; a request without scope gets the default', async () => {
    await withSandbox(['unknown-scopes'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.scopes_supported).toEqual([...FOREIGN_SCOPES]);
      const prm = await getJson(`${sb.baseUrl}/.well-known/oauth-protected-resource`);
      expect(prm.body).toMatchObject({ authorization_servers: [sb.issuer], scopes_supported: [...FOREIGN_SCOPES] });
      const reg = await register(as);
      const req = await authorizationUrl(as, reg.client, REDIRECT_URI, 'x');
      req.url.searchParams.delete('scope');
      const params = oauth.validateAuthResponse(as, reg.client, await loginOverHttp(req.url), req.state);
      const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, REDIRECT_URI, req.verifier, insecure);
      const tokens = await oauth.processAuthorizationCodeResponse(as, reg.client, response);
      expect(tokens.scope).toBe(FOREIGN_SCOPES[0]);
      expect(eventsOf(sb, 'authorize_request').at(-1)?.scope).toBeNull();
      const refused = await loginOverHttp((await authorizationUrl(as, reg.client, REDIRECT_URI, 'openid courses:read')).url);
      expect(refused.searchParams.get('error')).toBe('invalid_scope');
    });
  });

  it('narrows-granted-scope: an advertised scope that was asked for is left out of the grant', async () => {
    await withSandbox(['narrows-granted-scope'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.scopes_supported).toContain(WITHHELD_SCOPE);
      const reg = await register(as);
      const tokens = await obtainTokens(as, reg, `openid courses:read ${WITHHELD_SCOPE}`);
      expect(tokens.scope?.split(' ').sort()).toEqual(['courses:read', 'openid']);
    });
  });

  it('no-resource-metadata: no RFC 9728 document', async () => {
    await withSandbox(['no-resource-metadata'], async (sb) => {
      expect((await getJson(`${sb.baseUrl}/.well-known/oauth-protected-resource`)).status).toBe(404);
      expect((await discover(sb.issuer)).issuer).toBe(sb.issuer);
    });
  });

  it('metadata-path-insertion-only: an issuer with a path, its document only at the path-insertion URL; logins work', async () => {
    await withSandbox(['metadata-path-insertion-only'], async (sb) => {
      const origin = new URL(sb.issuer).origin;
      expect(sb.issuer).toBe(`${origin}${ISSUER_PATH}`);
      const prm = await getJson(`${sb.baseUrl}/.well-known/oauth-protected-resource`);
      expect(prm.body?.authorization_servers).toEqual([sb.issuer]);
      expect((await getJson(`${origin}/.well-known/oauth-authorization-server`)).status).toBe(404);
      expect((await getJson(`${origin}/.well-known/openid-configuration`)).status).toBe(404);
      expect((await getJson(`${sb.issuer}/.well-known/openid-configuration`)).status).toBe(404);
      expect((await fetch(`${origin}${ISSUER_PATH}/api/oauth/token`, form({ grant_type: 'x' }))).status).toBe(400);
      expect((await fetch(`${origin}/api/oauth/token`, form({ grant_type: 'x' }))).status).toBe(404);
      const as = await discover(sb.issuer); // RFC 8414 path insertion
      expect(as.issuer).toBe(sb.issuer);
      expect(as.token_endpoint).toBe(`${sb.issuer}/api/oauth/token`);
      const reg = await register(as);
      const tokens = await obtainTokens(as, reg, 'openid courses:read');
      expect(oauth.getValidatedIdTokenClaims(tokens)?.iss).toBe(sb.issuer);
      expect(typeof (await refreshWith(as, reg, tokens.refresh_token!)).access_token).toBe('string');
    });
  });

  it('issuer-path with openid-discovery-only: OpenID discovery at the appended URL alone; logins work', async () => {
    await withSandbox(['issuer-path', 'openid-discovery-only'], async (sb) => {
      const origin = new URL(sb.issuer).origin;
      expect(sb.issuer).toBe(`${origin}${ISSUER_PATH}`);
      for (const path of ['/.well-known/oauth-authorization-server', `/.well-known/oauth-authorization-server${ISSUER_PATH}`, '/.well-known/openid-configuration']) {
        expect((await getJson(`${origin}${path}`)).status, path).toBe(404);
      }
      const url = new URL(sb.issuer);
      const as = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oidc', ...insecure }));
      expect(as.authorization_endpoint).toBe(`${sb.issuer}/oauth/authorize`);
      const tokens = await obtainTokens(as, await register(as), 'openid courses:read');
      expect(oauth.getValidatedIdTokenClaims(tokens)?.iss).toBe(sb.issuer);
    });
  });

  it('metadata-root-only and openid-discovery-only: one discovery document each', async () => {
    await withSandbox(['metadata-root-only'], async (sb) => {
      expect((await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`)).status).toBe(200);
      expect((await getJson(`${sb.issuer}/.well-known/openid-configuration`)).status).toBe(404);
    });
    await withSandbox(['openid-discovery-only'], async (sb) => {
      expect((await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`)).status).toBe(404);
      const url = new URL(sb.issuer);
      const as = await oauth.processDiscoveryResponse(url, await oauth.discoveryRequest(url, { algorithm: 'oidc', ...insecure }));
      const reg = await register(as);
      expect((await obtainTokens(as, reg, 'openid courses:read')).access_token).toBeTruthy();
    });
  });

  it('userinfo-other-subject: userinfo names someone else than the ID token', async () => {
    await withSandbox(['userinfo-other-subject'], async (sb) => {
      const as = await discover(sb.issuer);
      const tokens = await obtainTokens(as, await register(as), 'openid profile courses:read');
      expect(oauth.getValidatedIdTokenClaims(tokens)?.sub).toBe('usr_1815_ada');
      const info = await getJsonWith(as.userinfo_endpoint!, tokens.access_token);
      expect(info).toEqual(OTHER_SUBJECT);
    });
  });

  it('no-iss-parameter: no iss promised, none sent', async () => {
    await withSandbox(['no-iss-parameter'], async (sb) => {
      const as = await discover(sb.issuer);
      expect(as.authorization_response_iss_parameter_supported).toBeUndefined();
      const reg = await register(as);
      const req = await authorizationUrl(as, reg.client, REDIRECT_URI, 'openid courses:read');
      const callback = await loginOverHttp(req.url);
      expect(callback.searchParams.has('code')).toBe(true);
      expect(callback.searchParams.has('iss')).toBe(false);
    });
  });
});
