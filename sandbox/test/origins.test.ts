import type * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { discover, obtainTokens, register } from './testkit.js';

describe('split origins with alternate paths', () => {
  let sb: Sandbox;
  let as: oauth.AuthorizationServer;
  beforeAll(async () => {
    sb = await startSandbox({ quiet: true, splitOrigins: true, altPaths: true });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('puts the authorization server on a second 127.0.0.1 origin', () => {
    expect(sb.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.issuer).not.toBe(sb.baseUrl);
  });

  it('names the second origin in the protected resource metadata', async () => {
    const prm = await (await fetch(`${sb.baseUrl}/.well-known/oauth-protected-resource`)).json();
    expect(prm.resource).toBe(sb.baseUrl);
    expect(prm.authorization_servers).toEqual([sb.issuer]);
  });

  it('publishes the alternate endpoint paths in its metadata', async () => {
    as = await discover(sb.issuer);
    expect(as.authorization_endpoint).toBe(`${sb.issuer}/connect/authorize`);
    expect(as.token_endpoint).toBe(`${sb.issuer}/connect/token`);
    expect(as.registration_endpoint).toBe(`${sb.issuer}/connect/register`);
    expect(as.userinfo_endpoint).toBe(`${sb.issuer}/connect/userinfo`);
    expect(as.revocation_endpoint).toBe(`${sb.issuer}/connect/revoke`);
    expect(as.introspection_endpoint).toBe(`${sb.issuer}/connect/introspect`);
    const oidc = await (await fetch(`${sb.issuer}/.well-known/openid-configuration`)).json();
    expect(oidc.token_endpoint).toBe(as.token_endpoint);
  });

  it('answers 404 on the documented paths', async () => {
    for (const origin of [sb.issuer, sb.baseUrl]) {
      expect((await fetch(`${origin}/oauth/authorize?client_id=x`, { redirect: 'manual' })).status).toBe(404);
      for (const p of ['token', 'register', 'userinfo', 'revoke', 'introspect']) {
        const res = await fetch(`${origin}/api/oauth/${p}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
        expect(res.status, `${origin} ${p}`).toBe(404);
      }
    }
    // Each origin serves only its own side.
    expect((await fetch(`${sb.baseUrl}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${sb.issuer}/api/courses`)).status).toBe(404);
  });

  it('runs the whole flow, with tokens for the API on the other origin', async () => {
    as ??= await discover(sb.issuer);
    const reg = await register(as);
    const tokens = await obtainTokens(as, reg, 'openid email courses:read', { resource: sb.baseUrl });
    expect((await sb.introspect(tokens.access_token)).aud).toBe(sb.baseUrl);
    const api = await fetch(`${sb.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(api.status).toBe(200);
    const userinfo = await fetch(as.userinfo_endpoint!, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect((await userinfo.json()).email).toBe('ada@example.edu');
    const openapi = await (await fetch(`${sb.baseUrl}/openapi.json`)).json();
    expect(openapi.components.securitySchemes.oauth2.flows.authorizationCode.tokenUrl).toBe(`${sb.issuer}/connect/token`);
  });
});

describe('alternate paths on a single origin', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ quiet: true, altPaths: true });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('moves the endpoints and leaves the documented ones unanswered', async () => {
    const as = await discover(sb.issuer);
    expect(sb.issuer).toBe(sb.baseUrl);
    expect(as.registration_endpoint).toBe(`${sb.issuer}/connect/register`);
    expect((await fetch(`${sb.baseUrl}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);
    const reg = await register(as);
    const tokens = await obtainTokens(as, reg, 'courses:read');
    expect((await fetch(`${sb.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  });
});
