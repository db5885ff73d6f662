import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/errors.js';
import { fromOAuthError, oauthStep } from '../../src/oauth/oauth-errors.js';

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
    name: 'an ID token that fails a check is named as such',
    err: new oauth.OperationProcessingError('unexpected JWT "nonce" (nonce) claim value', { code: oauth.JWT_CLAIM_COMPARISON, cause: { expected: 'n1', claims: { nonce: 'n2' }, claim: 'nonce' } }),
    exitCode: 1,
    error: 'invalid_id_token',
    message: /^The ID token from the server failed a check \(unexpected JWT "nonce" \(nonce\) claim value\); refusing it\.$/,
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

describe('answers that are not OAuth JSON name the HTTP status, and the error code when there is one', () => {
  const tokenAnswer = (res: Response) => ({
    where: 'token endpoint',
    step: async (): Promise<unknown> => oauth.processAuthorizationCodeResponse({ issuer: 'https://as.example' }, { client_id: 'c' }, res),
  });
  const registration = (res: Response) => ({ where: 'registration endpoint', step: async (): Promise<unknown> => oauth.processDynamicClientRegistrationResponse(res) });
  it.each([
    {
      name: 'a 401 with an empty body',
      answer: tokenAnswer(new Response(null, { status: 401 })),
      message: /^The token endpoint answered HTTP 401, without an OAuth error code\.$/,
      error: 'server_error',
    },
    {
      name: 'an HTML 400',
      answer: registration(new Response('<h1>Bad Request</h1>', { status: 400, headers: { 'content-type': 'text/html' } })),
      message: /answered HTTP 400, without/,
      error: 'server_error',
    },
    {
      name: 'a plain-text 500',
      answer: registration(new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain' } })),
      message: /answered HTTP 500/,
      error: 'server_error',
    },
    {
      name: 'an OAuth error sent as text/plain',
      answer: registration(new Response(JSON.stringify({ error: 'invalid_client_metadata', error_description: 'no' }), { status: 400, headers: { 'content-type': 'text/plain' } })),
      message: /answered HTTP 400 and refused the request \(invalid_client_metadata: no\)/,
      error: 'invalid_client_metadata',
    },
    {
      name: 'an OAuth error as JSON',
      answer: tokenAnswer(new Response(JSON.stringify({ error: 'invalid_grant' }), { status: 400, headers: { 'content-type': 'application/json' } })),
      message: /^The token endpoint answered HTTP 400 and refused the request \(invalid_grant\)\.$/,
      error: 'invalid_grant',
    },
    {
      name: 'a Basic challenge at the token endpoint refuses the client',
      answer: tokenAnswer(new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="token"' } })),
      message: /answered HTTP 401 and refused the request \(invalid_client\)/,
      error: 'invalid_client',
    },
  ])('$name', async ({ answer, message, error }) => {
    const err: unknown = await oauthStep(answer.where, answer.step).then(
      () => undefined,
      (e: unknown) => e,
    );
    const report = describeError(err);
    expect(report.message).toMatch(message);
    expect(report.message).not.toMatch(/content.type|JSON/i);
    expect(report.error).toBe(error);
  });
});
