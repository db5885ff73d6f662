import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { checkPushedRequestMetadata, pushAuthorizationRequest } from '../../src/oauth/pushed-authorization.js';

const AS = {
  issuer: 'https://as.example',
  authorization_endpoint: 'https://as.example/authorize',
  token_endpoint: 'https://as.example/token',
  pushed_authorization_request_endpoint: 'https://as.example/par',
};
const AUTH_URL =
  'https://as.example/authorize?response_type=code&client_id=c1&redirect_uri=http%3A%2F%2F127.0.0.1%3A5555%2Fcallback&scope=openid&code_challenge=abc&code_challenge_method=S256&state=s1';

/** A PAR endpoint with a canned answer, recording each form it was sent. */
function parEndpoint(status: number, body: unknown): HttpClient & { sent: Array<{ url: string; form: URLSearchParams }> } {
  const sent: Array<{ url: string; form: URLSearchParams }> = [];
  return {
    sent,
    async request(req: HttpRequest) {
      sent.push({ url: String(req.url), form: new URLSearchParams(typeof req.body === 'string' ? req.body : Buffer.from(req.body ?? '').toString()) });
      return { status, statusText: '', headers: { 'content-type': 'application/json' }, rawHeaders: [], body: Buffer.from(JSON.stringify(body)), url: String(req.url), httpVersion: '1.1' };
    },
  };
}

const push = (http: HttpClient, as: Record<string, unknown> = AS) =>
  pushAuthorizationRequest(http, as as never, { clientId: 'c1', authMethod: 'none' }, { authorizationUrl: AUTH_URL }).then((pushed) => pushed.url);

describe('pushed authorization requests', () => {
  it('pushes every parameter and gives the browser only client_id and request_uri', async () => {
    const http = parEndpoint(201, { request_uri: 'urn:ietf:params:oauth:request_uri:abc', expires_in: 60 });
    const url = new URL(await push(http));
    expect(`${url.origin}${url.pathname}`).toBe('https://as.example/authorize');
    expect([...url.searchParams]).toEqual([
      ['client_id', 'c1'],
      ['request_uri', 'urn:ietf:params:oauth:request_uri:abc'],
    ]);
    expect(http.sent).toHaveLength(1);
    expect(http.sent[0]!.url).toBe('https://as.example/par');
    expect(Object.fromEntries(http.sent[0]!.form)).toMatchObject({ client_id: 'c1', response_type: 'code', scope: 'openid', code_challenge: 'abc', state: 's1' });
  });

  it('reports a refusal at the PAR endpoint as a token-endpoint refusal is reported', async () => {
    const http = parEndpoint(400, { error: 'invalid_request', error_description: 'redirect_uri not registered' });
    await expect(push(http)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'The pushed authorization request endpoint answered HTTP 400 and refused the request (invalid_request: redirect_uri not registered).',
    });
  });

  it('refuses a request_uri URL on another origin', async () => {
    const http = parEndpoint(201, { request_uri: 'https://evil.example/req/1', expires_in: 60 });
    await expect(push(http)).rejects.toMatchObject({ code: 'foreign_endpoint', message: expect.stringContaining('(https://evil.example)') });
  });

  it('refuses a PAR endpoint on another origin before sending anything', async () => {
    const http = parEndpoint(201, { request_uri: 'urn:x', expires_in: 60 });
    await expect(push(http, { ...AS, pushed_authorization_request_endpoint: 'https://evil.example/par' })).rejects.toMatchObject({ code: 'foreign_endpoint' });
    expect(http.sent).toEqual([]);
  });

  it('refuses a server that requires pushed requests but names no endpoint', () => {
    const { pushed_authorization_request_endpoint: _, ...rest } = AS;
    expect(() => checkPushedRequestMetadata({ ...rest, require_pushed_authorization_requests: true } as never)).toThrow(
      /requires pushed authorization requests but names no pushed_authorization_request_endpoint/,
    );
    expect(() => checkPushedRequestMetadata(rest as never)).not.toThrow();
  });
});
