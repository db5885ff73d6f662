import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/errors.js';
import { fromOAuthError } from '../../src/oauth/oauth-errors.js';

const bodyError = (error: string, error_description?: string) =>
  new oauth.ResponseBodyError('server responded with an error in the response body', { cause: { error, error_description }, response: new Response(null, { status: 400 }) });

const cases: Array<{ name: string; err: unknown; exitCode: number; error: string; message: RegExp }> = [
  { name: 'a refused grant needs a login', err: bodyError('invalid_grant', 'grant expired'), exitCode: 4, error: 'invalid_grant', message: /refused the request \(invalid_grant: grant expired\)/ },
  { name: 'an unknown client needs a login', err: bodyError('invalid_client'), exitCode: 4, error: 'invalid_client', message: /invalid_client/ },
  { name: 'any other refusal is a failure', err: bodyError('temporarily_unavailable', 'maintenance'), exitCode: 1, error: 'temporarily_unavailable', message: /maintenance/ },
  {
    name: 'a refusal whose error is not a plain code gets a generic --json code',
    err: bodyError('x\u001b[2J"; rm -rf ~'),
    exitCode: 1,
    error: 'oauth_error',
    message: /refused the request/,
  },
  {
    name: 'an error redirect whose error is not a plain code gets a generic --json code',
    err: new oauth.AuthorizationResponseError('authorization response from the server is an error', { cause: new URLSearchParams({ error: 'Access Denied\n' }) }),
    exitCode: 1,
    error: 'oauth_error',
    message: /^Login failed/,
  },
  {
    name: 'an error redirect names what the server answered',
    err: new oauth.AuthorizationResponseError('authorization response from the server is an error', { cause: new URLSearchParams({ error: 'access_denied', error_description: 'no' }) }),
    exitCode: 1,
    error: 'access_denied',
    message: /^Login failed: the authorization server answered access_denied: no\.$/,
  },
  {
    name: 'a challenge means the token was rejected',
    err: new oauth.WWWAuthenticateChallengeError('challenge', { cause: [{ scheme: 'bearer', parameters: { error: 'invalid_token' } }], response: new Response(null, { status: 401 }) }),
    exitCode: 4,
    error: 'token_rejected',
    message: /rejected the access token/,
  },
  {
    name: 'metadata for another issuer is refused, naming both',
    err: new oauth.OperationProcessingError('"response" body "issuer" property does not match the expected value', {
      code: oauth.JSON_ATTRIBUTE_COMPARISON,
      cause: { expected: 'https://as.example/', body: { issuer: 'https://evil.example' }, attribute: 'issuer' },
    }),
    exitCode: 1,
    error: 'discovery_failed',
    message: /claims the issuer https:\/\/evil\.example, but it was fetched for https:\/\/as\.example;/,
  },
  {
    name: 'userinfo for another subject is refused',
    err: new oauth.OperationProcessingError('unexpected "response" body "sub" property value', {
      code: oauth.JSON_ATTRIBUTE_COMPARISON,
      cause: { expected: 'u1', body: { sub: 'u2' }, attribute: 'sub' },
    }),
    exitCode: 1,
    error: 'subject_mismatch',
    message: /another user/,
  },
  {
    name: 'any other protocol fault says which check failed',
    err: new oauth.OperationProcessingError('"response" body "access_token" property must be a string', { code: oauth.INVALID_RESPONSE }),
    exitCode: 1,
    error: 'protocol_error',
    message: /failed a protocol check: "response" body "access_token"/,
  },
];

describe('oauth4webapi errors, by code', () => {
  it.each(cases)('$name', ({ err, exitCode, error, message }) => {
    const report = describeError(fromOAuthError(err));
    expect(report).toMatchObject({ exitCode, error });
    expect(report.message).toMatch(message);
  });

  it('leaves errors that are not oauth4webapi errors as they are', () => {
    const plain = new Error('ECONNREFUSED');
    expect(fromOAuthError(plain)).toBe(plain);
    expect(fromOAuthError('text')).toBe('text');
  });
});
