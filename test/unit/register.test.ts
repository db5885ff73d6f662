import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { registerClient } from '../../src/oauth/register.js';
import type { AuthMethod } from '../../src/state/config-file.js';

const AS = { issuer: 'https://as.example', registration_endpoint: 'https://as.example/register' };
const REDIRECT_URI = 'http://127.0.0.1:5555/callback';

/** A registration endpoint that answers with the given status, content type and body. */
function registrationEndpoint(status: number, body: string, contentType = 'application/json'): HttpClient & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    async request(req: HttpRequest) {
      sent.push(JSON.parse(typeof req.body === 'string' ? req.body : '{}'));
      return { status, statusText: '', headers: { 'content-type': contentType }, rawHeaders: [], body: Buffer.from(body), url: String(req.url), httpVersion: '1.1' };
    },
  };
}

const register = (http: HttpClient, authMethod: AuthMethod) => registerClient(http, AS, { redirectUri: REDIRECT_URI, authMethod });

describe('client registration', () => {
  it.each([
    {
      name: 'the method the answer names',
      asked: 'client_secret_post',
      answer: { token_endpoint_auth_method: 'client_secret_basic', client_secret: 's3', client_secret_expires_at: 0 },
      method: 'client_secret_basic',
    },
    { name: 'the method asked, when the answer names none', asked: 'client_secret_post', answer: { client_secret: 's3', client_secret_expires_at: 0 }, method: 'client_secret_post' },
    { name: 'client_secret_basic for a secret given to a client that asked for none', asked: 'none', answer: { client_secret: 's3', client_secret_expires_at: 0 }, method: 'client_secret_basic' },
    { name: 'a public client without a secret', asked: 'none', answer: { token_endpoint_auth_method: 'none' }, method: 'none' },
  ] as const)('presents a secret with $name', async ({ asked, answer, method }) => {
    const http = registrationEndpoint(201, JSON.stringify({ client_id: 'c1', ...answer }));
    expect(await register(http, asked)).toMatchObject({ clientId: 'c1', authMethod: method });
    expect(http.sent).toEqual([expect.objectContaining({ token_endpoint_auth_method: asked, redirect_uris: [REDIRECT_URI] })]);
  });

  it('accepts a registration answered 200 instead of 201 for its body', async () => {
    expect(await register(registrationEndpoint(200, JSON.stringify({ client_id: 'c1' })), 'none')).toEqual({ clientId: 'c1', authMethod: 'none', clientSecret: undefined });
  });

  it.each([
    {
      name: 'an HTML 400',
      status: 400,
      body: '<h1>Bad Request</h1>',
      type: 'text/html',
      message: /^Client registration failed: the registration endpoint answered HTTP 400, without an OAuth error code\.$/,
    },
    { name: 'a plain-text 500', status: 500, body: 'Internal Server Error', type: 'text/plain', message: /HTTP 500/ },
    {
      name: 'an OAuth error as text/plain',
      status: 400,
      body: '{"error":"invalid_client_metadata"}',
      type: 'text/plain',
      message: /^Client registration was refused \(HTTP 400, invalid_client_metadata\)\.$/,
    },
  ])('names the status of $name', async ({ status, body, type, message }) => {
    await expect(register(registrationEndpoint(status, body, type), 'none')).rejects.toMatchObject({ code: 'registration_failed', message: expect.stringMatching(message) });
  });

  it.each([200, 201])('takes a client_secret without client_secret_expires_at (HTTP %i) as one that does not expire', async (status) => {
    const http = registrationEndpoint(status, JSON.stringify({ client_id: 'c1', client_secret: 'never-expiring-secret', token_endpoint_auth_method: 'client_secret_post' }));
    expect(await register(http, 'client_secret_post')).toMatchObject({ clientId: 'c1', clientSecret: 'never-expiring-secret', authMethod: 'client_secret_post' });
  });

  it('keeps a registration the server made confidential although a public one was asked for', async () => {
    const http = registrationEndpoint(201, JSON.stringify({ client_id: 'c1', client_secret: 'given-anyway', token_endpoint_auth_method: 'client_secret_post' }));
    expect(await register(http, 'none')).toMatchObject({ clientId: 'c1', clientSecret: 'given-anyway', authMethod: 'client_secret_post' });
  });

  it('still refuses what oauth4webapi refuses: an expiry that is not a number', async () => {
    const http = registrationEndpoint(201, JSON.stringify({ client_id: 'c1', client_secret: 's3', client_secret_expires_at: 'soon' }));
    await expect(register(http, 'client_secret_post')).rejects.toThrow(/client_secret_expires_at/);
  });

  it('refuses a confidential registration that brought no secret', async () => {
    await expect(register(registrationEndpoint(201, JSON.stringify({ client_id: 'c1' })), 'client_secret_basic')).rejects.toThrow(/no client secret/);
  });
});
