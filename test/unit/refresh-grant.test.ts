import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../src/http/client.js';
import { fromOAuthError } from '../../src/oauth/oauth-errors.js';
import { refreshGrant } from '../../src/oauth/refresh.js';
import type { TokenSet } from '../../src/state/token-set.js';

// The refresh grant as oauth4webapi sends and checks it, through our HTTP client (the fetch adapter).
const AS = { issuer: 'https://login.school.example', token_endpoint: 'https://login.school.example/token' };
const NOW = 1_700_000_000;
const current: TokenSet & { refreshToken: string } = {
  issuer: AS.issuer,
  clientId: 'cli-client',
  resource: 'https://api.school.example',
  accessToken: 'at-old-0123456789',
  tokenType: 'bearer',
  expiresAt: NOW - 5,
  obtainedAt: NOW - 3605,
  refreshToken: 'rt-old-0123456789',
  scope: 'openid courses:read',
  subject: 'u-ada',
};

function answer(status: number, body: unknown): HttpResponse {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, statusText: '', headers: { 'content-type': 'application/json' }, rawHeaders: [], body: Buffer.from(text), url: AS.token_endpoint, httpVersion: '1.1' };
}

function tokenEndpoint(res: HttpResponse) {
  const sent: HttpRequest[] = [];
  return { sent, http: { request: async (req: HttpRequest) => (sent.push(req), res) } };
}

async function refusal(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (err: unknown) => fromOAuthError(err),
  );
}

describe('refresh grant', () => {
  it('posts the refresh token, client id and resource as a form and keeps the new tokens', async () => {
    const { sent, http } = tokenEndpoint(answer(200, { access_token: 'at-new-0123456789', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-new-0123456789' }));
    const next = await refreshGrant(http, AS, { clientId: 'cli-client', authMethod: 'none' }, { current, nowSeconds: NOW, timeoutMs: 1000 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', url: AS.token_endpoint });
    expect(sent[0].headers?.['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(String(sent[0].body)))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt-old-0123456789',
      resource: 'https://api.school.example',
      client_id: 'cli-client',
    });
    expect(next).toMatchObject({
      accessToken: 'at-new-0123456789',
      tokenType: 'bearer',
      expiresAt: NOW + 3600,
      obtainedAt: NOW,
      refreshToken: 'rt-new-0123456789',
      scope: 'openid courses:read',
      subject: 'u-ada',
    });
    expect(next.clientSecret).toBeUndefined();
  });

  it('authenticates a confidential client with client_secret_post and keeps the old refresh token when none is sent', async () => {
    const { sent, http } = tokenEndpoint(answer(200, { access_token: 'at-new-0123456789', token_type: 'bearer', expires_in: 60 }));
    const withSecret = { ...current, clientSecret: 'cs-0123456789' };
    const next = await refreshGrant(http, AS, { clientId: 'cli-client', authMethod: 'client_secret_post', clientSecret: 'cs-0123456789' }, { current: withSecret, nowSeconds: NOW, timeoutMs: 1000 });
    expect(new URLSearchParams(String(sent[0].body)).get('client_secret')).toBe('cs-0123456789');
    expect(next).toMatchObject({ refreshToken: 'rt-old-0123456789', expiresAt: NOW + 60, clientSecret: 'cs-0123456789' });
  });

  it('turns an OAuth error answer into a refusal with its code (exit 4 for invalid_grant)', async () => {
    const { http } = tokenEndpoint(answer(400, { error: 'invalid_grant', error_description: 'grant revoked' }));
    const err = await refusal(refreshGrant(http, AS, { clientId: 'cli-client', authMethod: 'none' }, { current, nowSeconds: NOW, timeoutMs: 1000 }));
    expect(err).toMatchObject({ error: 'invalid_grant', exitCode: 4 });
  });

  it.each([
    ['no access token', { token_type: 'bearer' }, /access_token/],
    ['no token type', { access_token: 'at-0123456789' }, /token_type/],
    ['a negative lifetime', { access_token: 'at-0123456789', token_type: 'bearer', expires_in: -1 }, /expires_in/],
  ])('refuses an answer with %s as a protocol error', async (_, body, message) => {
    const { http } = tokenEndpoint(answer(200, body));
    const err = await refusal(refreshGrant(http, AS, { clientId: 'cli-client', authMethod: 'none' }, { current, nowSeconds: NOW, timeoutMs: 1000 }));
    expect(err).toMatchObject({ code: 'protocol_error', exitCode: 1, message: expect.stringMatching(message) });
  });
});
