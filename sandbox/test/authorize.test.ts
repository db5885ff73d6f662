import type * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { authorizationUrl, discover, eventsOf, loginOverHttp, register, type RegisteredClient } from './testkit.js';

let sb: Sandbox;
let as: oauth.AuthorizationServer;
let reg: RegisteredClient;
const REDIRECT = 'http://127.0.0.1:8765/callback';

beforeAll(async () => {
  sb = await startSandbox({ quiet: true });
  as = await discover(sb.issuer);
  reg = await register(as, { redirect_uris: [REDIRECT] });
});
afterAll(async () => {
  await sb?.close();
});

async function authorize(params: Record<string, string | undefined>) {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

function base(overrides: Record<string, string | undefined> = {}) {
  return {
    response_type: 'code',
    client_id: reg.client.client_id,
    redirect_uri: REDIRECT,
    scope: 'openid courses:read',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'xyz',
    ...overrides,
  };
}

function errorRedirect(location: string | null) {
  expect(location).toBeTruthy();
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  return url.searchParams;
}

describe('authorization endpoint', () => {
  it('starts a sign-in for a well-formed request', async () => {
    const { status, location } = await authorize(base());
    expect(status).toBe(303);
    expect(new URL(location!, sb.issuer).pathname).toMatch(/^\/interaction\//);
    expect(eventsOf(sb, 'authorize').at(-1)).toMatchObject({ client_id: reg.client.client_id, scope: 'openid courses:read' });
  });

  it('refuses the plain PKCE method, with state and iss', async () => {
    const { location } = await authorize(base({ code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) }));
    const p = errorRedirect(location);
    expect(p.get('error')).toBe('invalid_request');
    expect(p.get('state')).toBe('xyz');
    expect(p.get('iss')).toBe(sb.issuer);
  });

  it('refuses a request without a code challenge', async () => {
    const { location } = await authorize(base({ code_challenge: undefined, code_challenge_method: undefined }));
    const p = errorRedirect(location);
    expect(p.get('error')).toBe('invalid_request');
    expect(p.get('error_description')).toMatch(/PKCE/);
    expect(p.get('iss')).toBe(sb.issuer);
  });

  it('refuses unknown scopes with invalid_scope instead of dropping them', async () => {
    const { location } = await authorize(base({ scope: 'openid courses:read orders:write' }));
    const p = errorRedirect(location);
    expect(p.get('error')).toBe('invalid_scope');
    expect(p.get('error_description')).toContain('orders:write');
    expect(p.get('state')).toBe('xyz');
    expect(p.get('iss')).toBe(sb.issuer);
  });

  it('refuses offline_access, which the platform does not have', async () => {
    const { location } = await authorize(base({ scope: 'openid offline_access' }));
    expect(errorRedirect(location).get('error')).toBe('invalid_scope');
  });

  it('matches loopback redirect URIs on any port for native clients', async () => {
    const { status, location } = await authorize(base({ redirect_uri: 'http://127.0.0.1:1234/callback' }));
    expect(status).toBe(303);
    expect(new URL(location!, sb.issuer).pathname).toMatch(/^\/interaction\//);
  });

  it('does not redirect to an unregistered redirect URI', async () => {
    const res = await fetch(new URL(`?${new URLSearchParams(base({ redirect_uri: 'http://127.0.0.1:1234/other' }))}`, as.authorization_endpoint!), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri');
  });

  it('returns access_denied with iss when the user denies consent', async () => {
    const req = await authorizationUrl(as, reg.client, REDIRECT, 'openid courses:read');
    const callback = await loginOverHttp(req.url, { consent: 'deny' });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(req.state);
    expect(callback.searchParams.get('iss')).toBe(sb.issuer);
    expect(callback.searchParams.get('code')).toBeNull();
    expect(eventsOf(sb, 'consent').at(-1)).toMatchObject({ client_id: reg.client.client_id, decision: 'deny' });
  });

  it('shows the sign-in form again after a wrong password', async () => {
    const req = await authorizationUrl(as, reg.client, REDIRECT, 'openid');
    await expect(loginOverHttp(req.url, { password: 'wrong' })).rejects.toThrow(/sign-in failed/);
  });
});
