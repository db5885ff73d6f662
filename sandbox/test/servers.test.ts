// The variants of servers as they are, checked with plain HTTP: a client test against a variant is
// only worth something if the variant is what it claims to be.
import { describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { API_PATH, CHALLENGE_METADATA_PATH, CHALLENGE_SCOPE, type SandboxVariant, WRITE_CHALLENGE_SCOPE } from '../src/variants.js';

async function withSandbox(variants: SandboxVariant[], run: (sb: Sandbox) => Promise<void>) {
  const sb = await startSandbox({ quiet: true, variants });
  try {
    await run(sb);
  } finally {
    await sb.close();
  }
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: res.status, body, challenge: res.headers.get('www-authenticate') };
}

const PRM = '/.well-known/oauth-protected-resource';
const register = (sb: Sandbox, fields: Record<string, unknown>) =>
  fetch(`${sb.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ application_type: 'native', redirect_uris: ['http://127.0.0.1:8765/callback'], ...fields }),
  });

describe('sandbox variants of servers as they are', () => {
  it('api-under-path: the base URL has the path, its metadata only at the path-scoped address', async () => {
    await withSandbox(['api-under-path'], async (sb) => {
      const origin = new URL(sb.baseUrl).origin;
      expect(sb.baseUrl).toBe(`${origin}${API_PATH}`);
      expect((await get(`${origin}${PRM}${API_PATH}`)).body).toMatchObject({ resource: sb.baseUrl });
      expect((await get(`${origin}${PRM}`)).status).toBe(404);
      expect((await get(`${sb.baseUrl}/api/courses`)).body).toMatchObject({ anonymous: true });
    });
  });

  it("metadata-at-origin-only: the origin's metadata names the origin; the path-scoped address has none", async () => {
    await withSandbox(['metadata-at-origin-only'], async (sb) => {
      const origin = new URL(sb.baseUrl).origin;
      expect((await get(`${origin}${PRM}${API_PATH}`)).status).toBe(404);
      expect((await get(`${origin}${PRM}`)).body).toMatchObject({ resource: origin });
    });
  });

  it('metadata-by-challenge-only: no well-known metadata; a request without a token is challenged, naming it', async () => {
    await withSandbox(['metadata-by-challenge-only'], async (sb) => {
      expect((await get(`${sb.baseUrl}${PRM}`)).status).toBe(404);
      const anonymous = await get(`${sb.baseUrl}/`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.challenge).toBe(`Bearer resource_metadata="${sb.baseUrl}${CHALLENGE_METADATA_PATH}", scope="${CHALLENGE_SCOPE}"`);
      expect((await get(`${sb.baseUrl}/api/courses`)).status).toBe(401);
      expect((await get(`${sb.baseUrl}${CHALLENGE_METADATA_PATH}`)).body).toMatchObject({ resource: sb.baseUrl });
      // The authorization server's own endpoints are not the API's.
      expect((await get(`${sb.issuer}/.well-known/oauth-authorization-server`)).status).toBe(200);
    });
  });

  it('metadata-by-write-challenge-only (with issuer-path): only a write without a token is challenged; nothing at the base URL leads elsewhere', async () => {
    await withSandbox(['metadata-by-write-challenge-only', 'issuer-path'], async (sb) => {
      expect((await get(`${sb.baseUrl}${PRM}`)).status).toBe(404);
      expect((await get(`${sb.baseUrl}/`)).status).toBe(404);
      // The base URL is no issuer: its own metadata addresses have nothing.
      expect((await get(`${sb.baseUrl}/.well-known/oauth-authorization-server`)).status).toBe(404);
      expect((await get(`${sb.baseUrl}/.well-known/openid-configuration`)).status).toBe(404);
      const write = await fetch(`${sb.baseUrl}/api/courses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
      expect(write.status).toBe(401);
      expect(write.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${sb.baseUrl}${CHALLENGE_METADATA_PATH}", scope="${WRITE_CHALLENGE_SCOPE}"`);
      expect((await get(`${sb.baseUrl}${CHALLENGE_METADATA_PATH}`)).body).toMatchObject({ resource: sb.baseUrl, authorization_servers: [sb.issuer] });
    });
  });

  it('scopes-in-resource-only: the authorization server lists no scopes, the resource does', async () => {
    await withSandbox(['scopes-in-resource-only'], async (sb) => {
      expect((await get(`${sb.issuer}/.well-known/oauth-authorization-server`)).body).not.toHaveProperty('scopes_supported');
      expect((await get(`${sb.baseUrl}${PRM}`)).body?.scopes_supported).toContain('courses:read');
    });
  });

  it('no-registration-endpoint: none in the metadata, and none at the old address', async () => {
    await withSandbox(['no-registration-endpoint'], async (sb) => {
      expect((await get(`${sb.issuer}/.well-known/oauth-authorization-server`)).body).not.toHaveProperty('registration_endpoint');
      expect((await register(sb, {})).status).toBe(404);
    });
  });

  it('dpop-not-accepted-by-api: DPoP at the authorization server, not in the resource metadata; the DPoP scheme refused', async () => {
    await withSandbox(['dpop-not-accepted-by-api'], async (sb) => {
      expect((await get(`${sb.issuer}/.well-known/oauth-authorization-server`)).body?.dpop_signing_alg_values_supported).toContain('ES256');
      expect((await get(`${sb.baseUrl}${PRM}`)).body).not.toHaveProperty('dpop_signing_alg_values_supported');
      expect((await get(`${sb.baseUrl}/api/courses`, { authorization: 'DPoP some-token' })).status).toBe(401);
    });
  });

  it('dpop-offered: the resource metadata says it accepts DPoP', async () => {
    await withSandbox(['dpop-offered'], async (sb) => {
      expect((await get(`${sb.baseUrl}${PRM}`)).body?.dpop_signing_alg_values_supported).toContain('ES256');
    });
  });

  it('public-made-confidential with secret-without-expiry: a public registration answered confidential, its secret without expiry', async () => {
    await withSandbox(['public-made-confidential', 'secret-without-expiry'], async (sb) => {
      const res = await register(sb, { token_endpoint_auth_method: 'none' });
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', client_secret: expect.any(String) });
      expect(body).not.toHaveProperty('client_secret_expires_at');
    });
  });
});
