import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../src/http/client.js';
import { ServerRefusal } from '../../src/oauth/oauth-errors.js';
import { checkedTokenResponse, refreshGrant } from '../../src/oauth/refresh.js';
import type { TokenSet } from '../../src/state/token-set.js';

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

describe('refresh grant', () => {
  it('posts the refresh token, client id and resource as a form and keeps the new tokens', async () => {
    const { sent, http } = tokenEndpoint(answer(200, { access_token: 'at-new-0123456789', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-new-0123456789' }));
    const next = await refreshGrant(http, AS, { clientId: 'cli-client', authMethod: 'none' }, { current, nowSeconds: NOW, timeoutMs: 1000 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'POST', url: AS.token_endpoint, headers: { 'content-type': expect.stringMatching(/^application\/x-www-form-urlencoded/) } });
    expect(Object.fromEntries(new URLSearchParams(String(sent[0].body)))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt-old-0123456789',
      resource: 'https://api.school.example',
      client_id: 'cli-client',
    });
    expect(next).toMatchObject({ accessToken: 'at-new-0123456789', tokenType: 'bearer', expiresAt: NOW + 3600, obtainedAt: NOW, refreshToken: 'rt-new-0123456789', scope: 'openid courses:read', subject: 'u-ada' });
    expect(next.clientSecret).toBeUndefined();
  });

  it('authenticates a confidential client with client_secret_post and keeps the old refresh token when none is sent', async () => {
    const { sent, http } = tokenEndpoint(answer(200, { access_token: 'at-new-0123456789', token_type: 'bearer', expires_in: '60' }));
    const withSecret = { ...current, clientSecret: 'cs-0123456789' };
    const next = await refreshGrant(http, AS, { clientId: 'cli-client', authMethod: 'client_secret_post', clientSecret: 'cs-0123456789' }, { current: withSecret, nowSeconds: NOW, timeoutMs: 1000 });
    expect(new URLSearchParams(String(sent[0].body)).get('client_secret')).toBe('cs-0123456789');
    expect(next).toMatchObject({ refreshToken: 'rt-old-0123456789', expiresAt: NOW + 60, clientSecret: 'cs-0123456789' });
  });

  it('turns an OAuth error answer into a refusal with its code (exit 4 for invalid_grant)', () => {
    let thrown: unknown;
    try {
      checkedTokenResponse(answer(400, { error: 'invalid_grant', error_description: 'grant revoked' }));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ServerRefusal);
    expect(thrown).toMatchObject({ error: 'invalid_grant', exitCode: 4, message: 'The server refused the request (invalid_grant: grant revoked).' });
  });

  it.each([
    ['a non-200 answer without an OAuth error', answer(502, '<html>bad gateway</html>'), /answered HTTP 502 without an OAuth error/],
    ['a body that is not JSON', answer(200, 'not json'), /did not answer with a JSON object/],
    ['no access token', answer(200, { token_type: 'bearer' }), /sent no access_token/],
    ['no token type', answer(200, { access_token: 'at-0123456789' }), /sent no token_type/],
    ['a token that is not a bearer token', answer(200, { access_token: 'at-0123456789', token_type: 'mac' }), /not a bearer token/],
    ['a negative lifetime', answer(200, { access_token: 'at-0123456789', token_type: 'bearer', expires_in: -1 }), /invalid expires_in/],
    ['an empty refresh token', answer(200, { access_token: 'at-0123456789', token_type: 'bearer', refresh_token: '' }), /invalid refresh_token/],
    ['a scope that is not a string', answer(200, { access_token: 'at-0123456789', token_type: 'bearer', scope: ['a'] }), /invalid scope/],
  ])('refuses %s as a protocol error', (_, res, message) => {
    expect(() => checkedTokenResponse(res)).toThrow(expect.objectContaining({ code: 'protocol_error', message: expect.stringMatching(message) }));
  });
});
