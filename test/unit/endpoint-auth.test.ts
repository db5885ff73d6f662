// Revocation and introspection on servers whose metadata for those endpoints disagrees with what
// they accept: the client's registered method first, the metadata's once after a refusal of it.
import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/http/client.js';
import type { ClientIdentity } from '../../src/oauth/client.js';
import { endpointAuthAttempts } from '../../src/oauth/endpoint-auth.js';
import { introspectOwnToken } from '../../src/oauth/introspect.js';
import type { AuthorizationServer } from '../../src/oauth/oauth4webapi.js';
import { revokeToken } from '../../src/oauth/revoke.js';

const AS = 'https://login.school.example';
const SECRET = 'client-secret-0123456789';
const post: ClientIdentity = { clientId: 'cid-1', authMethod: 'client_secret_post', clientSecret: SECRET };
const basic: ClientIdentity = { clientId: 'cid-1', authMethod: 'client_secret_basic', clientSecret: SECRET };

/** Metadata that lists only client_secret_basic for revocation and introspection, as Glewlwyd's does. */
const metadata: AuthorizationServer = {
  issuer: AS,
  token_endpoint: `${AS}/token`,
  revocation_endpoint: `${AS}/revoke`,
  introspection_endpoint: `${AS}/introspect`,
  token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
  revocation_endpoint_auth_methods_supported: ['client_secret_basic'],
  introspection_endpoint_auth_methods_supported: ['client_secret_basic'],
};

type Refusal = 'invalid_client' | '401-empty' | '503';

/** A server that accepts only the methods in `accepts`, refusing the others as `refusal` says. */
function strictServer(accepts: string[], refusal: Refusal = 'invalid_client') {
  const tried: string[] = [];
  const answer = (status: number, body: string, url: string, headers: Record<string, string> = {}): HttpResponse => ({
    status,
    statusText: '',
    headers: { 'content-type': 'application/json', ...headers },
    rawHeaders: [],
    body: Buffer.from(body),
    url,
    httpVersion: '1.1',
  });
  const http: HttpClient = {
    async request(req: HttpRequest) {
      const url = String(req.url);
      const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
      const header = Object.entries(req.headers ?? {}).find(([k]) => k.toLowerCase() === 'authorization')?.[1] ?? '';
      const method = header.startsWith('Basic ') ? 'client_secret_basic' : form.has('client_secret') ? 'client_secret_post' : 'none';
      tried.push(method);
      if (!accepts.includes(method)) {
        if (refusal === '503') return answer(503, '{"error":"temporarily_unavailable"}', url);
        if (refusal === '401-empty') return answer(401, '', url, { 'content-type': 'text/plain' });
        return answer(401, JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }), url);
      }
      if (url.endsWith('/introspect')) return answer(200, JSON.stringify({ active: true, sub: 'u-ada' }), url);
      return answer(200, '', url);
    },
  };
  return { http, tried };
}

describe('the order of client authentication methods at revocation and introspection', () => {
  it.each([
    { name: "the registered method, then the endpoint's", client: post, endpoint: ['client_secret_basic'], token: ['client_secret_post'], attempts: ['client_secret_post', 'client_secret_basic'] },
    { name: 'the registered method alone when the endpoint lists it', client: post, endpoint: ['client_secret_post', 'client_secret_basic'], token: undefined, attempts: ['client_secret_post'] },
    { name: "the token endpoint's list when the endpoint has none", client: basic, endpoint: undefined, token: ['client_secret_post'], attempts: ['client_secret_basic', 'client_secret_post'] },
    { name: 'the registered method alone when nothing is published', client: basic, endpoint: undefined, token: undefined, attempts: ['client_secret_basic'] },
    { name: 'a public client: its id alone', client: { clientId: 'c', authMethod: 'none' as const }, endpoint: ['client_secret_basic'], token: undefined, attempts: ['none'] },
  ])('$name', ({ client, endpoint, token, attempts }) => {
    expect(endpointAuthAttempts(client, endpoint, token)).toEqual(attempts);
  });
});

describe('a server that accepts only the registered method, whatever its metadata lists', () => {
  it('revokes with client_secret_post at once, though the metadata names client_secret_basic', async () => {
    const server = strictServer(['client_secret_post']);
    await revokeToken(server.http, metadata, post, { token: 'rt-0123456789', hint: 'refresh_token' });
    expect(server.tried).toEqual(['client_secret_post']);
  });

  it('introspects with client_secret_post at once, though the metadata names client_secret_basic', async () => {
    const server = strictServer(['client_secret_post']);
    await expect(introspectOwnToken(server.http, metadata, post, { accessToken: 'at-0123456789' })).resolves.toMatchObject({ active: true, sub: 'u-ada' });
    expect(server.tried).toEqual(['client_secret_post']);
  });
});

describe("a server that accepts only the metadata's method", () => {
  it.each(['invalid_client', '401-empty'] as const)('revokes after one refusal of the registered method (%s)', async (refusal) => {
    const server = strictServer(['client_secret_basic'], refusal);
    await revokeToken(server.http, metadata, post, { token: 'rt-0123456789', hint: 'refresh_token' });
    expect(server.tried).toEqual(['client_secret_post', 'client_secret_basic']);
  });

  it('introspects after one refusal of the registered method', async () => {
    const server = strictServer(['client_secret_basic']);
    await expect(introspectOwnToken(server.http, metadata, post, { accessToken: 'at-0123456789' })).resolves.toMatchObject({ active: true });
    expect(server.tried).toEqual(['client_secret_post', 'client_secret_basic']);
  });
});

describe('failures', () => {
  it('reports a refusal only when both methods were refused, naming both, once each', async () => {
    const server = strictServer([]);
    const refused = revokeToken(server.http, metadata, post, { token: 'rt-0123456789', hint: 'refresh_token' });
    await expect(refused).rejects.toMatchObject({
      code: 'invalid_client',
      message: expect.stringMatching(/HTTP 401 .*invalid_client.*with client_secret_basic as with client_secret_post\.$/),
    });
    expect(server.tried).toEqual(['client_secret_post', 'client_secret_basic']);
  });

  it('does not try another method when the failure is not about the client (a 503)', async () => {
    const server = strictServer([], '503');
    await expect(revokeToken(server.http, metadata, post, { token: 'rt-0123456789', hint: 'refresh_token' })).rejects.toMatchObject({ message: expect.stringMatching(/\b503\b/) });
    expect(server.tried).toEqual(['client_secret_post']);
  });

  it('never puts the client secret in the message', async () => {
    const server = strictServer([]);
    const err: unknown = await revokeToken(server.http, metadata, post, { token: 'rt-0123456789', hint: 'refresh_token' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).not.toContain(SECRET);
  });
});
