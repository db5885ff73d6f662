import { describe, expect, it } from 'vitest';
import { discover } from '../../src/oauth/discover.js';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';

type Route = { status: number; body?: unknown; raw?: string; headers?: Record<string, string> };

/** A fake server: canned answers by URL, and a record of what was asked. */
function fakeServer(routes: Record<string, Route>): HttpClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async request(req: HttpRequest) {
      const url = String(req.url);
      asked.push(url);
      const r = routes[url] ?? { status: 404 };
      const body = Buffer.from(r.raw ?? (r.body === undefined ? '' : JSON.stringify(r.body)));
      return { status: r.status, statusText: '', headers: { 'content-type': 'application/json', ...(r.headers ?? {}) }, rawHeaders: [], body, url, httpVersion: '1.1' };
    },
  };
}

const API = 'https://api.school.example';
const AS = 'https://login.school.example';
const goodMetadata = {
  issuer: AS,
  authorization_endpoint: `${AS}/authorize`,
  token_endpoint: `${AS}/token`,
  registration_endpoint: `${AS}/register`,
  code_challenge_methods_supported: ['S256'],
  scopes_supported: ['openid', 'courses:read'],
};
const prm = { status: 200, body: { resource: API, authorization_servers: [AS] } };

describe('discovery', () => {
  it('follows the protected-resource metadata to an authorization server on another origin', async () => {
    const http = fakeServer({ [`${API}/.well-known/oauth-protected-resource`]: prm, [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: goodMetadata } });
    const info = await discover(http, API);
    expect(info).toMatchObject({ baseUrl: API, resource: API, as: { issuer: AS, token_endpoint: `${AS}/token` } });
  });

  it('falls back to OpenID discovery', async () => {
    const http = fakeServer({ [`${API}/.well-known/oauth-protected-resource`]: prm, [`${AS}/.well-known/openid-configuration`]: { status: 200, body: goodMetadata } });
    expect((await discover(http, API)).as.issuer).toBe(AS);
  });

  it('refuses metadata that claims another issuer, naming both', async () => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, issuer: 'https://evil.example' } },
    });
    await expect(discover(http, API)).rejects.toThrow(`claims the issuer https://evil.example, but it was fetched for ${AS}`);
  });

  it('refuses a server without S256', async () => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, code_challenge_methods_supported: ['plain'] } },
    });
    await expect(discover(http, API)).rejects.toMatchObject({ code: 'pkce_unsupported' });
  });

  it.each([[[]], [['plain']]])('refuses code_challenge_methods_supported %j, which leaves S256 out', async (methods) => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, code_challenge_methods_supported: methods } },
    });
    await expect(discover(http, API)).rejects.toMatchObject({ code: 'pkce_unsupported', exitCode: 1 });
  });

  it('takes metadata without code_challenge_methods_supported: S256 is used', async () => {
    const { code_challenge_methods_supported: _methods, ...withoutList } = goodMetadata;
    const http = fakeServer({ [`${API}/.well-known/oauth-protected-resource`]: prm, [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: withoutList } });
    expect((await discover(http, API)).as.issuer).toBe(AS);
  });

  it('refuses a plain-http endpoint in the metadata as the server fault (exit 1), naming the field', async () => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, token_endpoint: 'http://tokens.example/token' } },
    });
    await expect(discover(http, API)).rejects.toMatchObject({ exitCode: 1, message: expect.stringContaining('plain http:// token_endpoint (http://tokens.example)') });
  });

  it('says a redirect is not followed', async () => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: { status: 302, headers: { location: 'https://elsewhere.example/meta' } },
    });
    await expect(discover(http, API)).rejects.toThrow('answered HTTP 302 (a redirect to https://elsewhere.example/meta, which is not followed)');
  });

  it('refuses protected-resource metadata for another resource', async () => {
    const http = fakeServer({ [`${API}/.well-known/oauth-protected-resource`]: { status: 200, body: { resource: 'https://other.example', authorization_servers: [AS] } } });
    await expect(discover(http, API)).rejects.toMatchObject({ code: 'discovery_failed' });
    expect(http.asked).toEqual([`${API}/.well-known/oauth-protected-resource`]);
  });

  const html = { status: 200, raw: '<!doctype html><title>App</title>', headers: { 'content-type': 'text/html' } };
  it.each([
    { name: 'a web page where the protected-resource metadata would be', prm: html },
    { name: 'a gateway refusing the protected-resource metadata', prm: { status: 403, raw: 'Forbidden', headers: { 'content-type': 'text/plain' } } },
  ])('takes $name as no such document', async ({ prm: answer }) => {
    const http = fakeServer({ [`${API}/.well-known/oauth-protected-resource`]: answer, [`${API}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, issuer: API } } });
    expect((await discover(http, API)).as.issuer).toBe(API);
  });

  it.each([
    { name: 'a web page', oauth2: html },
    { name: 'a refusal', oauth2: { status: 403 } },
  ])('looks for OpenID discovery when RFC 8414 metadata answers $name', async ({ oauth2 }) => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: oauth2,
      [`${AS}/.well-known/openid-configuration`]: { status: 200, body: goodMetadata },
    });
    expect((await discover(http, API)).as.issuer).toBe(AS);
  });

  it('reports the first problem when neither metadata document is usable', async () => {
    const http = fakeServer({ [`${API}/.well-known/oauth-protected-resource`]: prm, [`${AS}/.well-known/oauth-authorization-server`]: html });
    await expect(discover(http, API)).rejects.toThrow(`The authorization server metadata at ${AS} is not JSON.`);
  });

  it('never looks past RFC 8414 metadata that claims another issuer', async () => {
    const http = fakeServer({
      [`${API}/.well-known/oauth-protected-resource`]: prm,
      [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, issuer: 'https://evil.example' } },
      [`${AS}/.well-known/openid-configuration`]: { status: 200, body: goodMetadata },
    });
    await expect(discover(http, API)).rejects.toMatchObject({ code: 'discovery_failed' });
    expect(http.asked).not.toContain(`${AS}/.well-known/openid-configuration`);
  });
});

describe('discovery of servers as they are', () => {
  const BASE = `${API}/school`;
  const as = { [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: goodMetadata } };

  it('looks for the metadata of an API under a path at its path-scoped address first', async () => {
    const http = fakeServer({
      ...as,
      [`${API}/.well-known/oauth-protected-resource/school`]: { status: 200, body: { resource: BASE, authorization_servers: [AS], scopes_supported: ['courses:read'] } },
    });
    expect(await discover(http, BASE)).toMatchObject({ baseUrl: BASE, resource: BASE, resourceFound: 'path', resourceScopes: ['courses:read'] });
    expect(http.asked[0]).toBe(`${API}/.well-known/oauth-protected-resource/school`);
    expect(http.asked).not.toContain(`${API}/.well-known/oauth-protected-resource`);
  });

  it("falls back to the origin's metadata, whose resource is then the origin", async () => {
    const http = fakeServer({ ...as, [`${API}/.well-known/oauth-protected-resource`]: prm });
    expect(await discover(http, BASE)).toMatchObject({ resource: API, resourceFound: 'origin' });
    expect(http.asked.slice(0, 2)).toEqual([`${API}/.well-known/oauth-protected-resource/school`, `${API}/.well-known/oauth-protected-resource`]);
  });

  it.each([
    { where: 'path-scoped', url: `${API}/.well-known/oauth-protected-resource/school`, resource: API },
    { where: "origin's", url: `${API}/.well-known/oauth-protected-resource`, resource: BASE },
  ])('refuses $where metadata naming another resource than its address stands for (RFC 9728 §3.3)', async ({ url, resource }) => {
    const http = fakeServer({ ...as, [url]: { status: 200, body: { resource, authorization_servers: [AS] } } });
    await expect(discover(http, BASE)).rejects.toMatchObject({ code: 'discovery_failed', message: expect.stringContaining('"resource" property does not match') });
    expect(http.asked).not.toContain(`${AS}/.well-known/oauth-authorization-server`);
  });

  const challenge = (metadataUrl: string, scope = 'courses:read') => ({
    status: 401,
    raw: '{"error":"invalid_token"}',
    headers: { 'www-authenticate': `Bearer resource_metadata="${metadataUrl}", scope="${scope}"` },
  });

  it('follows the resource_metadata of the challenge to a request without a token where neither address has metadata', async () => {
    const custom = `${API}/meta/school.json`;
    const http = fakeServer({
      ...as,
      [BASE]: challenge(custom, 'courses:read students:read'),
      [custom]: { status: 200, body: { resource: BASE, authorization_servers: [AS], dpop_bound_access_tokens_required: true } },
    });
    expect(await discover(http, BASE)).toMatchObject({ resource: BASE, resourceFound: 'challenge', challengeScopes: ['courses:read', 'students:read'], resourceDpop: { required: true } });
    expect(http.asked.slice(0, 4)).toEqual([`${API}/.well-known/oauth-protected-resource/school`, `${API}/.well-known/oauth-protected-resource`, BASE, custom]);
  });

  it('refuses challenge-named metadata whose resource is not the URL requested', async () => {
    const custom = `${API}/meta/school.json`;
    const http = fakeServer({ ...as, [BASE]: challenge(custom), [custom]: { status: 200, body: { resource: API, authorization_servers: [AS] } } });
    await expect(discover(http, BASE)).rejects.toMatchObject({ code: 'discovery_failed' });
  });

  it('refuses a challenge naming plain-http metadata on another host', async () => {
    const http = fakeServer({ ...as, [BASE]: challenge('http://evil.example/meta') });
    await expect(discover(http, BASE)).rejects.toMatchObject({ message: expect.stringContaining('resource_metadata') });
    expect(http.asked).not.toContain('http://evil.example/meta');
  });

  it('takes the base URL, then its origin, for the issuer where nothing names one', async () => {
    const http = fakeServer({ [`${API}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, issuer: API } } });
    const info = await discover(http, BASE);
    expect(info.as.issuer).toBe(API);
    expect(info.resourceFound).toBeUndefined();
  });

  it("finds a legacy server's metadata at its origin although the API answers 401 under its own path", async () => {
    const refused = { status: 401, raw: '{"error":"invalid_token"}', headers: { 'www-authenticate': 'Bearer' } };
    const http = fakeServer({
      [BASE]: refused,
      [`${BASE}/.well-known/openid-configuration`]: refused,
      [`${API}/.well-known/oauth-authorization-server`]: { status: 200, body: { ...goodMetadata, issuer: API } },
    });
    expect((await discover(http, BASE)).as.issuer).toBe(API);
  });

  describe('an issuer with a path', () => {
    const TENANT = `${AS}/tenant1`;
    const named = { [`${API}/.well-known/oauth-protected-resource`]: { status: 200, body: { resource: API, authorization_servers: [TENANT] } } };
    it.each([
      { form: 'RFC 8414 path insertion', url: `${AS}/.well-known/oauth-authorization-server/tenant1`, before: [] as string[] },
      { form: 'OpenID appending', url: `${AS}/tenant1/.well-known/openid-configuration`, before: [`${AS}/.well-known/oauth-authorization-server/tenant1`] },
      {
        form: 'OpenID path insertion',
        url: `${AS}/.well-known/openid-configuration/tenant1`,
        before: [`${AS}/.well-known/oauth-authorization-server/tenant1`, `${AS}/tenant1/.well-known/openid-configuration`],
      },
    ])('finds its metadata by $form, never at the root', async ({ url, before }) => {
      const http = fakeServer({ ...named, [url]: { status: 200, body: { ...goodMetadata, issuer: TENANT } } });
      expect((await discover(http, API)).as.issuer).toBe(TENANT);
      expect(http.asked.slice(1)).toEqual([...before, url]);
      expect(http.asked).not.toContain(`${AS}/.well-known/oauth-authorization-server`);
      expect(http.asked).not.toContain(`${AS}/.well-known/openid-configuration`);
    });

    it('refuses metadata found by OpenID path insertion that claims the root issuer', async () => {
      const http = fakeServer({ ...named, [`${AS}/.well-known/openid-configuration/tenant1`]: { status: 200, body: goodMetadata } });
      await expect(discover(http, API)).rejects.toMatchObject({ code: 'discovery_failed' });
    });
  });

  it('reads whether the resource accepts DPoP from its algorithms alone', async () => {
    const http = fakeServer({ ...as, [`${API}/.well-known/oauth-protected-resource`]: { status: 200, body: { ...prm.body, dpop_signing_alg_values_supported: ['ES256'] } } });
    expect((await discover(http, API)).resourceDpop).toEqual({ algs: ['ES256'], required: false });
    const bearerOnly = fakeServer({ ...as, [`${API}/.well-known/oauth-protected-resource`]: prm });
    expect((await discover(bearerOnly, API)).resourceDpop).toBeUndefined();
  });
});

describe('DPoP at login', () => {
  const as = { issuer: AS, dpop_signing_alg_values_supported: ['ES256'] };
  it.each([
    { name: 'the server offers it and the resource accepts it', resourceDpop: { algs: ['ES256'], required: false }, uses: true },
    { name: 'the resource requires it', resourceDpop: { required: true }, uses: true },
    { name: 'the resource says nothing of DPoP', resourceDpop: undefined, uses: false },
  ])('binds tokens only where $name', async ({ resourceDpop, uses }) => {
    const { usesDpop } = await import('../../src/oauth/dpop.js');
    expect(usesDpop({ as, resourceDpop })).toBe(uses);
    expect(usesDpop({ as: { issuer: AS }, resourceDpop })).toBe(false);
  });
});

describe('discovery from a challenge the API answered a request with, remembered since (RFC 9728 §5.1)', () => {
  const META = `${API}/meta/resource.json`;
  const asMetadata = { [`${AS}/.well-known/oauth-authorization-server`]: { status: 200, body: goodMetadata } };

  it('fetches the metadata the challenge named, and adds the scope it asked for', async () => {
    const http = fakeServer({ [META]: prm, ...asMetadata });
    const info = await discover(http, API, undefined, { challenge: { resourceMetadata: META, scope: ['courses:write', 'bad scope'] } });
    expect(info).toMatchObject({ resource: API, resourceFound: 'challenge', challengeScopes: ['courses:write'], as: { issuer: AS } });
    // The remembered address replaces the probe: no GET of the base URL for a challenge.
    expect(http.asked).not.toContain(API);
    expect(http.asked).not.toContain(`${API}/`);
  });

  it('refuses a document whose resource is not the base URL the request was for (§3.3)', async () => {
    const http = fakeServer({ [META]: { status: 200, body: { resource: 'https://other.example', authorization_servers: [AS] } }, ...asMetadata });
    await expect(discover(http, API, undefined, { challenge: { resourceMetadata: META } })).rejects.toMatchObject({ code: 'discovery_failed' });
  });

  it('refuses a remembered address over plain http to another host', async () => {
    const http = fakeServer({ ...asMetadata });
    await expect(discover(http, API, undefined, { challenge: { resourceMetadata: 'http://evil.example/m.json' } })).rejects.toThrow();
    expect(http.asked).not.toContain('http://evil.example/m.json');
  });

  it('without one, and with nothing found, names every address it tried and how a challenge is seen', async () => {
    const http = fakeServer({});
    const err = await discover(http, API).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'discovery_failed' });
    const hint = (err as { hint: string }).hint;
    expect(hint).toContain(`${API}/.well-known/oauth-protected-resource`);
    expect(hint).toContain(`${API}/.well-known/oauth-authorization-server`);
    expect(hint).toContain(`${API}/.well-known/openid-configuration`);
    expect(hint).toContain(`a challenge to GET ${API}/`);
    expect(hint).toContain(`school call --base-url ${API} -X POST`);
  });
});
