import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { eventsOf } from './testkit.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ quiet: true });
});
afterAll(async () => {
  await sb?.close();
});

function registerRaw(body: Record<string, unknown>) {
  return fetch(`${sb.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public native loopback client without any initial access token', async () => {
    const res = await registerRaw({
      client_name: 'school CLI',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:53682/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(typeof body.client_id).toBe('string');
    expect(body.client_secret).toBeUndefined();
    expect(body.token_endpoint_auth_method).toBe('none');
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect(body.redirect_uris).toEqual(['http://127.0.0.1:53682/callback']);
    const event = eventsOf(sb, 'register').find((e) => e.client_id === body.client_id);
    expect(event).toMatchObject({ token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1:53682/callback'] });
  });

  it('registers a confidential client (client_secret_post) and returns its secret', async () => {
    const res = await registerRaw({
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:40000/cb'],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.token_endpoint_auth_method).toBe('client_secret_post');
    expect(typeof body.client_secret).toBe('string');
    expect(body.client_secret.length).toBeGreaterThan(20);
    // Events never carry secrets.
    expect(JSON.stringify(sb.events)).not.toContain(body.client_secret);
  });

  it.each([
    ['https callback', 'https://app.example.com/callback'],
    ['localhost', 'http://localhost:8080/callback'],
    ['private network address', 'http://10.0.0.1/callback'],
    ['another host', 'http://example.com:8080/callback'],
    ['IPv6 loopback', 'http://[::1]:8080/callback'],
    ['loopback without port', 'http://127.0.0.1/callback'],
    ['loopback over https', 'https://127.0.0.1:8443/callback'],
    ['custom scheme', 'com.example.app:/callback'],
  ])('refuses a %s redirect URI with invalid_redirect_uri', async (_label, uri) => {
    const before = eventsOf(sb, 'register_refused').length;
    const res = await registerRaw({ application_type: 'native', redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_redirect_uri');
    expect(typeof body.error_description).toBe('string');
    const refused = eventsOf(sb, 'register_refused');
    expect(refused.length).toBe(before + 1);
    expect(refused.at(-1)).toMatchObject({ error: 'invalid_redirect_uri' });
  });

  it('refuses a mix of loopback and non-loopback redirect URIs', async () => {
    const res = await registerRaw({
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:5000/cb', 'https://evil.example/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_redirect_uri');
  });

  it('refuses token endpoint auth methods the server does not offer', async () => {
    const res = await registerRaw({
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:5000/cb'],
      token_endpoint_auth_method: 'private_key_jwt',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_client_metadata');
  });
});
