import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { offersDeviceGrant, requestDeviceAuthorization } from '../../src/oauth/device-authorization.js';
import { pollDeviceToken } from '../../src/oauth/device-token.js';

const AS = {
  issuer: 'https://as.example',
  token_endpoint: 'https://as.example/token',
  device_authorization_endpoint: 'https://as.example/device_authorization',
} as never;
const CLIENT = { clientId: 'c1', authMethod: 'none' } as const;

/** An endpoint with one canned JSON answer, recording the forms sent. */
function endpoint(status: number, body: unknown): HttpClient & { sent: URLSearchParams[] } {
  const sent: URLSearchParams[] = [];
  return {
    sent,
    async request(req: HttpRequest) {
      sent.push(new URLSearchParams(typeof req.body === 'string' ? req.body : Buffer.from(req.body ?? '').toString()));
      return { status, statusText: '', headers: { 'content-type': 'application/json' }, rawHeaders: [], body: Buffer.from(JSON.stringify(body)), url: String(req.url), httpVersion: '1.1' };
    },
  };
}
const codes = { device_code: 'dc', user_code: 'ABCD-EFGH', verification_uri: 'https://as.example/device', expires_in: 600 };

describe('device authorization (RFC 8628)', () => {
  it('asks with the scopes and resource, and polls every 5 s when the server names no interval', async () => {
    const http = endpoint(200, codes);
    const got = await requestDeviceAuthorization(http, AS, CLIENT, { scopes: ['openid', 'courses:read'], resource: 'https://api.example' });
    expect(got).toMatchObject({ deviceCode: 'dc', userCode: 'ABCD-EFGH', interval: 5, expiresIn: 600 });
    expect(Object.fromEntries(http.sent[0]!)).toMatchObject({ client_id: 'c1', scope: 'openid courses:read', resource: 'https://api.example' });
  });

  it('never polls more often than once a second', async () => {
    expect((await requestDeviceAuthorization(endpoint(200, { ...codes, interval: 0.01 }), AS, CLIENT, { scopes: [] })).interval).toBe(1);
  });

  it('refuses an interval of 0 and a verification address over plain http', async () => {
    await expect(requestDeviceAuthorization(endpoint(200, { ...codes, interval: 0 }), AS, CLIENT, { scopes: [] })).rejects.toMatchObject({ code: 'protocol_error' });
    await expect(requestDeviceAuthorization(endpoint(200, { ...codes, verification_uri: 'http://evil.example/device' }), AS, CLIENT, { scopes: [] })).rejects.toMatchObject({
      code: 'insecure_metadata',
    });
  });

  it('asks for the grant at registration only where the server offers it', () => {
    expect(offersDeviceGrant(AS)).toBe(true);
    expect(offersDeviceGrant({ ...(AS as object), grant_types_supported: ['authorization_code'] } as never)).toBe(false);
    expect(offersDeviceGrant({ issuer: 'https://as.example' } as never)).toBe(false);
  });

  it.each([
    ['authorization_pending', 'pending'],
    ['slow_down', 'slow_down'],
  ])('reads %s as a reason to keep waiting', async (error, kind) => {
    expect(await pollDeviceToken(endpoint(400, { error }), AS, CLIENT, { deviceCode: 'dc', nowSeconds: 0 })).toEqual({ kind });
  });

  it('throws any other refusal', async () => {
    await expect(pollDeviceToken(endpoint(400, { error: 'access_denied' }), AS, CLIENT, { deviceCode: 'dc', nowSeconds: 0 })).rejects.toMatchObject({ code: 'access_denied' });
  });
});
