import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/http/client.js';
import { validateCallback } from '../../src/oauth/authorize.js';
import { type Challenge, readChallenge } from '../../src/oauth/challenge.js';
import { pollDeviceToken } from '../../src/oauth/device-token.js';
import { createDpopKey, dpopProver, offersDpop } from '../../src/oauth/dpop.js';
import { exchangeCode } from '../../src/oauth/exchange.js';
import { pushAuthorizationRequest } from '../../src/oauth/pushed-authorization.js';
import { requestUserInfo } from '../../src/oauth/userinfo.js';
import { fromOAuthError } from '../../src/oauth/oauth-errors.js';
import { refreshGrant } from '../../src/oauth/refresh.js';
import { revokeToken } from '../../src/oauth/revoke.js';
import { ApiClient, type ApiRequest } from '../../src/session/api-client.js';
import type { Session } from '../../src/session/usable-session.js';
import { parseTokenSet, serializeTokenSet } from '../../src/state/token-set.js';
import { readPendingSecrets, pendingSecrets } from '../../src/state/pending-login.js';
import { type DpopKey, type TokenSet, isDpopBound, shownTokenType } from '../../src/types/tokens.js';
import { redactText } from '../../src/util/redact.js';
import { DPOP_NONCE_FRESH_SECONDS } from '../../src/state/caches.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** One request through the API client with a session of this token (and key). */
const sendAuthorized = (http: HttpClient, token: Pick<Session, 'accessToken' | 'dpopKey'>, req: ApiRequest) =>
  new ApiClient(
    { http, clock: { now: () => Date.now() } },
    { baseUrl: req.url.origin, session: { profile: 'default', baseUrl: req.url.origin, tokenType: 'bearer', source: 'keychain', ...token } },
  ).send(req);

// DPoP (RFC 9449) as the CLI signs it: proofs checked here the way a server checks them, with
// WebCrypto and nothing of the CLI's own.

const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');
const sha256 = (text: string) => b64url(createHash('sha256').update(text).digest());

interface Proof {
  header: { typ: string; alg: string; jwk: Record<string, string> };
  payload: { htm: string; htu: string; iat: number; jti: string; ath?: string; nonce?: string };
}

/** Verifies a proof's signature with the public key in its own header, as a server does, and returns its parts. */
async function verifyProof(proof: string): Promise<Proof> {
  const [h, p, s] = proof.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Proof['header'];
  const key = await crypto.subtle.importKey('jwk', header.jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const ok = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(s, 'base64url'), Buffer.from(`${h}.${p}`));
  expect(ok, 'the proof signature verifies with its own jwk').toBe(true);
  return { header, payload: JSON.parse(Buffer.from(p, 'base64url').toString()) as Proof['payload'] };
}

async function thumbprintOf(jwk: Record<string, string>): Promise<string> {
  return b64url(
    createHash('sha256')
      .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
      .digest(),
  );
}

function answer(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, statusText: '', headers: { 'content-type': 'application/json', ...headers }, rawHeaders: [], body: Buffer.from(JSON.stringify(body)), url: '', httpVersion: '1.1' };
}

function server(respond: (req: HttpRequest, n: number) => HttpResponse) {
  const sent: HttpRequest[] = [];
  return { sent, http: { request: async (req: HttpRequest) => (sent.push(req), respond(req, sent.length)) } };
}

describe('DPoP keys and proofs', () => {
  it('is used only where the metadata lists ES256', () => {
    expect(offersDpop({ issuer: 'https://a.example', dpop_signing_alg_values_supported: ['ES256', 'EdDSA'] })).toBe(true);
    expect(offersDpop({ issuer: 'https://a.example', dpop_signing_alg_values_supported: ['PS256'] })).toBe(false);
    expect(offersDpop({ issuer: 'https://a.example', dpop_signing_alg_values_supported: 'ES256' as unknown as string[] })).toBe(false);
    expect(offersDpop({ issuer: 'https://a.example' })).toBe(false);
  });

  it('signs an ES256 proof for the method, the URL without query and the token hash, with only the public key in it', async () => {
    const key = await createDpopKey();
    const prover = await dpopProver(key);
    const proof = await verifyProof(await prover.proof('get', new URL('https://api.school.example/api/courses?page=2#x'), 'at-0123456789'));
    expect(proof.header).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
    expect(proof.header.jwk).toEqual({ kty: 'EC', crv: 'P-256', x: key.x, y: key.y });
    expect(proof.payload).toMatchObject({ htm: 'GET', htu: 'https://api.school.example/api/courses', ath: sha256('at-0123456789') });
    expect(Math.abs(proof.payload.iat - Date.now() / 1000)).toBeLessThan(5);
    const again = await verifyProof(await prover.proof('GET', new URL('https://api.school.example/api/courses'), 'at-0123456789'));
    expect(again.payload.jti).not.toBe(proof.payload.jti);
    expect(await prover.thumbprint()).toBe(await thumbprintOf(proof.header.jwk));
  });

  it('puts the nonce a server gave into the next proof to that origin only', async () => {
    const prover = await dpopProver(await createDpopKey());
    prover.keepNonce(new URL('https://api.school.example/a'), 'n-1');
    expect((await verifyProof(await prover.proof('GET', new URL('https://api.school.example/b')))).payload.nonce).toBe('n-1');
    expect((await verifyProof(await prover.proof('GET', new URL('https://other.example/b')))).payload.nonce).toBeUndefined();
  });

  it('keeps the private key a secret: redacted wherever it would be printed', async () => {
    const key = await createDpopKey();
    expect(redactText(`key ${key.d}`)).toBe('key [REDACTED]');
  });

  it('is stored with the tokens and read back; a damaged key is dropped, not used', async () => {
    const key = await createDpopKey();
    const set: TokenSet = { issuer: 'https://a.example', clientId: 'c', accessToken: 'at-0123456789', tokenType: 'DPoP', obtainedAt: 1, dpopKey: key };
    const read = parseTokenSet(serializeTokenSet(set), 'the test store');
    expect(read.dpopKey).toEqual(key);
    expect(isDpopBound(read)).toBe(true);
    const damaged = parseTokenSet(JSON.stringify({ ...set, dpopKey: { ...key, d: 'short' } }), 'the test store');
    expect(damaged.dpopKey).toBeUndefined();
    expect(isDpopBound(damaged)).toBe(false);
    expect(isDpopBound({ tokenType: 'Bearer', dpopKey: key })).toBe(false);
  });

  it("keeps a pending login's key with its verifier, and reads an older entry (the verifier alone)", async () => {
    const key: DpopKey = await createDpopKey();
    expect(readPendingSecrets(pendingSecrets({ codeVerifier: 'v-0123456789', dpopKey: key }))).toEqual({ codeVerifier: 'v-0123456789', dpopKey: key });
    expect(readPendingSecrets(pendingSecrets({ codeVerifier: 'v-0123456789' }))).toEqual({ codeVerifier: 'v-0123456789' });
    expect(readPendingSecrets('v-not-json')).toBeUndefined();
    // A device code is the server's string: one that happens to look like JSON is kept whole.
    expect(readPendingSecrets(pendingSecrets({ codeVerifier: '{"codeVerifier":"x"}' }))).toEqual({ codeVerifier: '{"codeVerifier":"x"}' });
    expect(readPendingSecrets('{"codeVerifier":"v","dpopKey":{}}')).toBeUndefined();
  });
});

describe('API requests with a bound token', () => {
  const url = new URL('https://api.school.example/api/courses');

  it('sends a bearer token as before when the token is not bound', async () => {
    const { sent, http } = server(() => answer(200, {}));
    await sendAuthorized(http, { accessToken: 'at-0123456789' }, { method: 'GET', url });
    expect(sent[0].headers).toEqual({ authorization: 'Bearer at-0123456789' });
  });

  it('sends the DPoP scheme and a proof for the request', async () => {
    const key = await createDpopKey();
    const { sent, http } = server(() => answer(200, {}));
    await sendAuthorized(http, { accessToken: 'at-0123456789', dpopKey: key }, { method: 'POST', url, headers: { accept: 'application/json' } });
    expect(sent[0].headers?.authorization).toBe('DPoP at-0123456789');
    expect(sent[0].headers?.accept).toBe('application/json');
    const proof = await verifyProof(String(sent[0].headers?.dpop));
    expect(proof.payload).toMatchObject({ htm: 'POST', htu: url.href, ath: sha256('at-0123456789') });
    expect(proof.header.jwk.x).toBe(key.x);
  });

  it('answers a nonce challenge once, with the nonce in a new proof', async () => {
    const challenge = { 'www-authenticate': 'DPoP error="use_dpop_nonce", error_description="nonce required"', 'dpop-nonce': 'n-api-1' };
    const { sent, http } = server((_req, n) => (n === 1 ? answer(401, { error: 'use_dpop_nonce' }, challenge) : answer(200, { ok: true })));
    const res = await sendAuthorized(http, { accessToken: 'at-0123456789', dpopKey: await createDpopKey() }, { method: 'GET', url });
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(2);
    expect((await verifyProof(String(sent[0].headers?.dpop))).payload.nonce).toBeUndefined();
    expect((await verifyProof(String(sent[1].headers?.dpop))).payload.nonce).toBe('n-api-1');
  });

  it('stops after two nonce challenges in a row (a server that always asks again)', async () => {
    const { sent, http } = server((_req, n) => answer(401, { error: 'use_dpop_nonce' }, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': `n-${n}` }));
    const failure = await sendAuthorized(http, { accessToken: 'at-0123456789', dpopKey: await createDpopKey() }, { method: 'GET', url }).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'dpop_nonce_loop', exitCode: 1 });
    expect(String((failure as Error).message)).toMatch(/nonce twice in a row/);
    expect(sent).toHaveLength(2);
  });

  it('returns any other refusal as it is (a 401 without a nonce is not retried)', async () => {
    const { sent, http } = server(() => answer(401, { error: 'invalid_token' }, { 'www-authenticate': 'DPoP error="invalid_token"' }));
    const res = await sendAuthorized(http, { accessToken: 'at-0123456789', dpopKey: await createDpopKey() }, { method: 'GET', url });
    expect(res.status).toBe(401);
    expect(sent).toHaveLength(1);
  });
});

describe('the refresh grant with a bound token', () => {
  const AS = { issuer: 'https://login.school.example', token_endpoint: 'https://login.school.example/token' };
  const NOW = 1_700_000_000;
  const base = { issuer: AS.issuer, clientId: 'cli', accessToken: 'at-old-0123456789', tokenType: 'DPoP', obtainedAt: NOW - 60, expiresAt: NOW - 1, refreshToken: 'rt-old-0123456789' };
  const granted = answer(200, { access_token: 'at-new-0123456789', token_type: 'DPoP', expires_in: 60, refresh_token: 'rt-new-0123456789' });

  it('proves the key at the token endpoint and keeps it with the new tokens', async () => {
    const key = await createDpopKey();
    const { sent, http } = server(() => granted);
    const next = await refreshGrant(http, AS, { clientId: 'cli', authMethod: 'none' }, { current: { ...base, dpopKey: key }, nowSeconds: NOW, timeoutMs: 1000 });
    const proof = await verifyProof(String(sent[0].headers?.dpop));
    expect(proof.payload).toMatchObject({ htm: 'POST', htu: AS.token_endpoint });
    expect(proof.payload.ath).toBeUndefined();
    expect(proof.header.jwk.x).toBe(key.x);
    expect(next).toMatchObject({ accessToken: 'at-new-0123456789', tokenType: 'DPoP', dpopKey: key });
    expect(isDpopBound(next)).toBe(true);
  });

  it('answers use_dpop_nonce once; the refresh token is sent again only after the refusal', async () => {
    const { sent, http } = server((_req, n) => (n === 1 ? answer(400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': 'n-as-1' }) : granted));
    await refreshGrant(http, AS, { clientId: 'cli', authMethod: 'none' }, { current: { ...base, dpopKey: await createDpopKey() }, nowSeconds: NOW, timeoutMs: 1000 });
    expect(sent).toHaveLength(2);
    expect((await verifyProof(String(sent[1].headers?.dpop))).payload.nonce).toBe('n-as-1');
  });

  it('gives up on a token endpoint that asks for a new nonce every time', async () => {
    const { sent, http } = server((_req, n) => answer(400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': `n-${n}` }));
    const failure = await refreshGrant(http, AS, { clientId: 'cli', authMethod: 'none' }, { current: { ...base, dpopKey: await createDpopKey() }, nowSeconds: NOW, timeoutMs: 1000 }).catch(
      (err: unknown) => fromOAuthError(err),
    );
    expect(failure).toMatchObject({ code: 'dpop_nonce_loop' });
    expect(sent).toHaveLength(2);
  });

  it('sends no proof for a bearer token', async () => {
    const { sent, http } = server(() => answer(200, { access_token: 'at-new-0123456789', token_type: 'Bearer', expires_in: 60 }));
    const next = await refreshGrant(http, AS, { clientId: 'cli', authMethod: 'none' }, { current: { ...base, tokenType: 'Bearer' }, nowSeconds: NOW, timeoutMs: 1000 });
    expect(sent[0].headers?.dpop).toBeUndefined();
    expect(next.dpopKey).toBeUndefined();
    expect(next.tokenType).toBe('bearer');
  });
});

describe('revocation of a bound token', () => {
  const AS = { issuer: 'https://login.school.example', revocation_endpoint: 'https://login.school.example/token/revocation' };
  const revoked = { status: 200, statusText: '', headers: {}, rawHeaders: [], body: Buffer.alloc(0), url: AS.revocation_endpoint, httpVersion: '1.1' } satisfies HttpResponse;

  it('carries a proof of the key for the revocation endpoint, and answers a nonce challenge once', async () => {
    const key = await createDpopKey();
    const { sent, http } = server((_req, n) => (n === 1 ? answer(400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': 'n-rev-1' }) : revoked));
    await revokeToken(http, AS, { clientId: 'cli', authMethod: 'none' }, { token: 'rt-0123456789', hint: 'refresh_token', dpopKey: key });
    expect(sent).toHaveLength(2);
    const [first, second] = await Promise.all(sent.map((req) => verifyProof(String(req.headers?.dpop))));
    expect(first!.payload).toMatchObject({ htm: 'POST', htu: AS.revocation_endpoint });
    expect(first!.payload.nonce).toBeUndefined();
    expect(second!.payload.nonce).toBe('n-rev-1');
    expect(second!.header.jwk.x).toBe(key.x);
  });

  it('sends no proof without a key', async () => {
    const { sent, http } = server(() => revoked);
    await revokeToken(http, AS, { clientId: 'cli', authMethod: 'none' }, { token: 'rt-0123456789', hint: 'refresh_token' });
    expect(sent[0]!.headers?.dpop).toBeUndefined();
  });
});

describe('what the servers answer to proofs', () => {
  const AS = {
    issuer: 'https://login.school.example',
    token_endpoint: 'https://login.school.example/token',
    userinfo_endpoint: 'https://login.school.example/me',
    authorization_endpoint: 'https://login.school.example/authorize',
    pushed_authorization_request_endpoint: 'https://login.school.example/par',
  };
  const client = { clientId: 'cli', authMethod: 'none' as const };
  const exchange = async (http: ReturnType<typeof server>['http'], dpopKey?: DpopKey) => {
    const params = await validateCallback(AS, client, new URL('http://127.0.0.1:1/callback?code=code-0123456789&state=st'), 'st');
    return exchangeCode(http, AS, client, { params, redirectUri: 'http://127.0.0.1:1/callback', codeVerifier: 'v'.repeat(43), nowSeconds: 1, dpopKey });
  };

  it("a Bearer answer to a proof: the key is kept (a public client's refresh token may be bound to it), the token sent as Bearer", async () => {
    const key = await createDpopKey();
    const { sent, http } = server(() => answer(200, { access_token: 'at-0123456789', token_type: 'Bearer', refresh_token: 'rt-0123456789', expires_in: 60 }));
    const { tokens } = await exchange(http, key);
    expect(sent[0]!.headers?.dpop).toBeDefined();
    expect(tokens).toMatchObject({ tokenType: 'bearer', dpopKey: key });
    expect(isDpopBound(tokens)).toBe(false);
    expect(shownTokenType(tokens)).toBe('bearer');
  });

  it('a DPoP token issued to a request that proved no key is refused: nobody could use it', async () => {
    const { http } = server(() => answer(200, { access_token: 'at-0123456789', token_type: 'DPoP', expires_in: 60 }));
    await expect(exchange(http)).rejects.toMatchObject({ code: 'protocol_error', message: expect.stringMatching(/DPoP-bound token to a request that proved no key/) });
  });

  it('use_dpop_nonce without a DPoP-Nonce header is not sent again (the same request would get the same answer)', async () => {
    const { sent, http } = server(() => answer(400, { error: 'use_dpop_nonce' }));
    const failure = await exchange(http, await createDpopKey()).catch((err: unknown) => err);
    expect(failure).toMatchObject({ error: 'use_dpop_nonce' });
    expect(sent).toHaveLength(1);
  });

  it('userinfo: a proof with the token hash, one nonce retry, then the loop refused', async () => {
    const key = await createDpopKey();
    const challenge = (n: number) => answer(401, {}, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': `n-ui-${n}` });
    const once = server((_req, n) => (n === 1 ? challenge(n) : answer(200, { sub: 'u-ada' })));
    expect(await requestUserInfo(once.http, AS, { clientId: 'cli', accessToken: 'at-0123456789', dpopKey: key })).toEqual({ ok: true, claims: { sub: 'u-ada' } });
    expect(once.sent).toHaveLength(2);
    expect(once.sent[0]!.headers?.authorization).toBe('DPoP at-0123456789');
    const retried = await verifyProof(String(once.sent[1]!.headers?.dpop));
    expect(retried.payload).toMatchObject({ htm: 'GET', htu: AS.userinfo_endpoint, ath: sha256('at-0123456789'), nonce: 'n-ui-1' });
    const forever = server((_req, n) => challenge(n));
    await expect(requestUserInfo(forever.http, AS, { clientId: 'cli', accessToken: 'at-0123456789', dpopKey: key })).rejects.toMatchObject({ code: 'dpop_nonce_loop' });
    expect(forever.sent).toHaveLength(2);
  });

  it('the pushed request proves the key and answers a nonce challenge once', async () => {
    const key = await createDpopKey();
    const { sent, http } = server((_req, n) =>
      n === 1 ? answer(400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': 'n-par-1' }) : answer(201, { request_uri: 'urn:ietf:params:oauth:request_uri:abc', expires_in: 60 }),
    );
    const { url, expiresIn } = await pushAuthorizationRequest(http, AS, client, { authorizationUrl: `${AS.authorization_endpoint}?client_id=cli&scope=openid`, dpopKey: key });
    expect(expiresIn).toBe(60);
    expect(url).toBe(`${AS.authorization_endpoint}?client_id=cli&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3Aabc`);
    expect(sent).toHaveLength(2);
    const proof = await verifyProof(String(sent[1]!.headers?.dpop));
    expect(proof.payload).toMatchObject({ htm: 'POST', htu: AS.pushed_authorization_request_endpoint, nonce: 'n-par-1' });
    expect(proof.header.jwk.x).toBe(key.x);
  });

  it('a device poll proves the key and answers a nonce challenge once', async () => {
    const key = await createDpopKey();
    const { sent, http } = server((_req, n) =>
      n === 1 ? answer(400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': 'n-dev-1' }) : answer(200, { access_token: 'at-0123456789', token_type: 'DPoP', expires_in: 60 }),
    );
    const poll = await pollDeviceToken(http, AS, client, { deviceCode: 'dc-0123456789', nowSeconds: 1, dpopKey: key });
    expect(poll).toMatchObject({ kind: 'done', result: { tokens: { tokenType: 'DPoP', dpopKey: key } } });
    expect((await verifyProof(String(sent[1]!.headers?.dpop))).payload.nonce).toBe('n-dev-1');
  });

  it('reads the challenge that names an error when a server lists both schemes', async () => {
    const both: Challenge[] = [
      { scheme: 'bearer', parameters: { realm: 'school' } },
      { scheme: 'dpop', parameters: { error: 'insufficient_scope', scope: 'courses:write' } },
    ];
    expect(readChallenge(403, both)).toMatchObject({ insufficientScope: ['courses:write'], error: 'insufficient_scope' });
    expect(readChallenge(401, [{ scheme: 'dpop', parameters: { error: 'invalid_token' } }])).toMatchObject({ refresh: true });
  });
});

describe('DPoP nonces remembered between processes', () => {
  const url = new URL('https://api.school.example/api/courses');

  it('starts from the remembered nonce, and remembers a new one once', async () => {
    const remembered: string[] = [];
    const memory = { recall: async () => 'n-earlier', remember: async (_origin: string, nonce: string) => void remembered.push(nonce) };
    const { sent, http } = server(() => answer(200, {}, { 'dpop-nonce': 'n-new' }));
    const session = { accessToken: 'at-0123456789', dpopKey: await createDpopKey(), dpopNonces: memory };
    await sendAuthorized(http, session, { method: 'GET', url });
    await sendAuthorized(http, session, { method: 'GET', url });
    expect((await verifyProof(String(sent[0]!.headers?.dpop))).payload.nonce).toBe('n-earlier');
    expect((await verifyProof(String(sent[1]!.headers?.dpop))).payload.nonce).toBe('n-new');
    expect(remembered).toEqual(['n-new']);
  });

  it('keeps a nonce per origin for five minutes, in the cache, refusing what is not a nonce', async () => {
    const deps = fakeDeps({ now: 1_800_000_000_000 });
    const now = 1_800_000_000;
    await deps.state.saveDpopNonce('https://api.school.example', 'n-1', now);
    await deps.state.saveDpopNonce('https://other.example', 'n-2', now);
    await deps.state.saveDpopNonce('https://api.school.example', 'bad "nonce"', now);
    expect(await deps.state.dpopNonce('https://api.school.example', now + 10)).toBe('n-1');
    expect(await deps.state.dpopNonce('https://other.example', now + 10)).toBe('n-2');
    expect(await deps.state.dpopNonce('https://api.school.example', now + DPOP_NONCE_FRESH_SECONDS)).toBeUndefined();
    expect(await deps.state.dpopNonce('https://unknown.example', now)).toBeUndefined();
    expect(modeOf(join(deps.paths.cacheDir, 'dpop-nonces.json'))).toBe(0o600);
  });
});
