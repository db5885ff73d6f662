import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { deleteRegistration, managementOf, readRegistration } from '../../src/oauth/registration-management.js';

const AS = { issuer: 'https://as.example', registration_endpoint: 'https://reg.as.example/register' } as never;
const M = { clientUri: 'https://reg.as.example/register/c1', accessToken: 'rat-secret' };

/** A registration endpoint with a canned status, recording each request. */
function endpoint(status: number, headers: Record<string, string> = {}): HttpClient & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    async request(req: HttpRequest) {
      sent.push(req);
      return {
        status,
        statusText: '',
        headers: { 'content-type': 'application/json', ...headers },
        rawHeaders: [],
        body: Buffer.from(status === 200 ? '{"client_id":"c1"}' : ''),
        url: String(req.url),
        httpVersion: '1.1',
      };
    },
  };
}

describe('registration management (RFC 7592)', () => {
  it("takes a registration_client_uri of the registration endpoint's or the issuer's origin, with its token", () => {
    expect(managementOf(AS, { registration_client_uri: M.clientUri, registration_access_token: 't' })).toEqual({ management: { clientUri: M.clientUri, accessToken: 't' } });
    expect(managementOf(AS, { registration_client_uri: 'https://as.example/clients/c1', registration_access_token: 't' }).management).toBeDefined();
    expect(managementOf(AS, { registration_client_uri: M.clientUri })).toEqual({});
    expect(managementOf(AS, {})).toEqual({});
  });

  it('refuses a registration_client_uri on another origin, or over plain http', () => {
    expect(managementOf(AS, { registration_client_uri: 'https://evil.example/c1', registration_access_token: 't' }).refused).toMatchObject({ code: 'foreign_endpoint' });
    expect(managementOf(AS, { registration_client_uri: 'http://reg.as.example/register/c1', registration_access_token: 't' }).refused).toMatchObject({ code: 'insecure_metadata' });
  });

  it('deletes with the registration access token as a bearer token', async () => {
    const http = endpoint(204);
    expect(await deleteRegistration(http, AS, M)).toEqual({ outcome: 'ok', status: 204 });
    expect(http.sent[0]).toMatchObject({ method: 'DELETE', url: M.clientUri, headers: expect.objectContaining({ authorization: 'Bearer rat-secret' }) });
  });

  it('tells a client the server no longer has from a failure', async () => {
    expect(await readRegistration(endpoint(401, { 'www-authenticate': 'Bearer error="invalid_token"' }), AS, M)).toEqual({ outcome: 'unknown', status: 401 });
    expect(await readRegistration(endpoint(200), AS, M)).toEqual({ outcome: 'ok', status: 200 });
    expect(await deleteRegistration(endpoint(500), AS, M)).toMatchObject({ outcome: 'failed', status: 500 });
  });

  it('sends nothing to a saved URI on another origin', async () => {
    const http = endpoint(204);
    await expect(deleteRegistration(http, AS, { ...M, clientUri: 'https://evil.example/c1' })).rejects.toMatchObject({ code: 'foreign_endpoint' });
    expect(http.sent).toEqual([]);
  });
});
