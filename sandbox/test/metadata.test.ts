import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ALL_SCOPES, DATA_SCOPES, startSandbox, type Sandbox } from '../src/index.js';
import { discover } from './testkit.js';

const SPEC_SCOPES = [
  'openid',
  'profile',
  'email',
  'courses:read',
  'courses:write',
  'students:read',
  'students:write',
  'members:read',
  'members:write',
  'analytics:read',
  'curriculum:read',
  'curriculum:write',
  'orders:read',
  'school:read',
  'school:write',
  'appearance:read',
  'appearance:write',
  'events:read',
  'events:write',
  'membership_plans:read',
  'membership_plans:write',
  'coupons:read',
  'coupons:write',
  'posts:read',
  'posts:write',
  'subscriptions:read',
  'subscriptions:write',
  'digital_products:read',
  'digital_products:write',
  'comments:read',
  'lecturers:read',
  'lecturers:write',
  'storage:write',
  'forms:read',
  'pages:read',
  'pages:write',
  'account:read',
  'account:write',
];

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ quiet: true });
});
afterAll(async () => {
  await sb?.close();
});

async function getJson(url: string) {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/([a-z-]+\+)?json/);
  return (await res.json()) as Record<string, any>;
}

describe('authorization server metadata (RFC 8414)', () => {
  it('lists every endpoint under the documented paths', async () => {
    const md = await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`);
    expect(md.issuer).toBe(sb.issuer);
    expect(sb.issuer).toBe(sb.baseUrl);
    expect(md.authorization_endpoint).toBe(`${sb.issuer}/oauth/authorize`);
    expect(md.token_endpoint).toBe(`${sb.issuer}/api/oauth/token`);
    expect(md.registration_endpoint).toBe(`${sb.issuer}/api/oauth/register`);
    expect(md.userinfo_endpoint).toBe(`${sb.issuer}/api/oauth/userinfo`);
    expect(md.revocation_endpoint).toBe(`${sb.issuer}/api/oauth/revoke`);
    expect(md.introspection_endpoint).toBe(`${sb.issuer}/api/oauth/introspect`);
    expect(md.jwks_uri).toMatch(new RegExp(`^${sb.issuer}/`));
    const jwks = await getJson(md.jwks_uri);
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) expect(key.d).toBeUndefined();
  });

  it('publishes exactly the 38 scopes of the interface, and no offline_access', async () => {
    const md = await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`);
    expect(md.scopes_supported).toHaveLength(38);
    expect([...md.scopes_supported].sort()).toEqual([...SPEC_SCOPES].sort());
    expect(md.scopes_supported).not.toContain('offline_access');
    expect([...ALL_SCOPES].sort()).toEqual([...SPEC_SCOPES].sort());
    expect(DATA_SCOPES).toHaveLength(35);
  });

  it('offers the code flow with S256 PKCE only, iss in responses, public and client_secret_post clients', async () => {
    const md = await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`);
    expect(md.code_challenge_methods_supported).toEqual(['S256']);
    expect(md.authorization_response_iss_parameter_supported).toBe(true);
    expect(md.response_types_supported).toEqual(['code']);
    expect([...md.grant_types_supported].sort()).toEqual(['authorization_code', 'refresh_token']);
    expect([...md.token_endpoint_auth_methods_supported].sort()).toEqual(['client_secret_post', 'none']);
    expect(md.client_id_metadata_document_supported).toBeUndefined();
  });

  it('serves OpenID Connect discovery consistent with it', async () => {
    const oauthMd = await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`);
    const oidc = await getJson(`${sb.issuer}/.well-known/openid-configuration`);
    for (const key of [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'registration_endpoint',
      'userinfo_endpoint',
      'revocation_endpoint',
      'introspection_endpoint',
      'jwks_uri',
      'scopes_supported',
      'code_challenge_methods_supported',
      'grant_types_supported',
      'token_endpoint_auth_methods_supported',
      'response_types_supported',
    ]) {
      expect(oidc[key], key).toEqual(oauthMd[key]);
    }
    expect(oidc.subject_types_supported).toEqual(['public']);
    expect(oidc.id_token_signing_alg_values_supported).toContain('RS256');
  });

  it('is readable by oauth4webapi', async () => {
    const as = await discover(sb.issuer);
    expect(as.issuer).toBe(sb.issuer);
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it('names the API as resource and the issuer as its authorization server', async () => {
    const prm = await getJson(`${sb.baseUrl}/.well-known/oauth-protected-resource`);
    expect(prm.resource).toBe(sb.baseUrl);
    expect(prm.authorization_servers).toEqual([sb.issuer]);
    expect(prm.bearer_methods_supported).toEqual(['header']);
    expect([...prm.scopes_supported].sort()).toEqual([...DATA_SCOPES].sort());
  });
});

describe('/openapi.json', () => {
  it('describes the API operations with their scopes and the oauth2 scheme from the metadata', async () => {
    const doc = await getJson(`${sb.baseUrl}/openapi.json`);
    const md = await getJson(`${sb.issuer}/.well-known/oauth-authorization-server`);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.servers[0].url).toBe(sb.baseUrl);
    const p = doc.paths;
    expect(p['/api/courses'].get.security).toEqual([{ oauth2: ['courses:read'] }]);
    expect(p['/api/courses'].post.security).toEqual([{ oauth2: ['courses:write'] }]);
    expect(p['/api/courses/{id}'].get.security).toEqual([{ oauth2: ['courses:read'] }]);
    expect(p['/api/students'].get.security).toEqual([{ oauth2: ['students:read'] }]);
    expect(p['/api/students'].post.security).toEqual([{ oauth2: ['students:write'] }]);
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) expect(p['/api/echo'][m].security).toEqual([{}, { oauth2: [] }]);
    const flow = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(doc.components.securitySchemes.oauth2.type).toBe('oauth2');
    expect(flow.authorizationUrl).toBe(md.authorization_endpoint);
    expect(flow.tokenUrl).toBe(md.token_endpoint);
    expect(Object.keys(flow.scopes).sort()).toEqual([...SPEC_SCOPES].sort());
  });
});

describe('events', () => {
  it('records every HTTP request', async () => {
    const before = sb.events.length;
    await fetch(`${sb.baseUrl}/.well-known/oauth-protected-resource`);
    const req = sb.events.slice(before).find((e) => e.type === 'request');
    expect(req).toMatchObject({ method: 'GET', path: '/.well-known/oauth-protected-resource', status: 200 });
    expect(typeof req!.at).toBe('number');
  });
});
