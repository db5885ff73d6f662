// DPoP (RFC 9449) in the sandbox: its five variants, and the API and userinfo checking proofs
// in every variant. Logins go through oauth4webapi with its own DPoP handle; the proofs that
// must be refused are built here with jose, one fault each.
import { createHash, randomUUID } from 'node:crypto';

import { calculateJwkThumbprint, exportJWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import type { SandboxVariant } from '../src/variants.js';
import { authorizationUrl, discover, eventsOf, insecure, loginOverHttp, register, type RegisteredClient } from './testkit.js';

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const SCOPE = 'openid profile courses:read';
const DEFAULT_ALGS = 'ES256 Ed25519 EdDSA';

interface Setup {
  sb: Sandbox;
  as: oauth.AuthorizationServer;
  reg: RegisteredClient;
}

async function setUp(variants: SandboxVariant[]): Promise<Setup> {
  const sb = await startSandbox({ quiet: true, variants });
  const as = await discover(sb.issuer);
  return { sb, as, reg: await register(as) };
}

/** Runs a request again once when the server asks for a (new) DPoP nonce, as a client should. */
async function onceMoreOnNonce<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (err) {
    if (!oauth.isDPoPNonceError(err)) throw err;
    return attempt();
  }
}

async function authorizationCode(s: Setup) {
  const req = await authorizationUrl(s.as, s.reg.client, REDIRECT_URI, SCOPE);
  const params = oauth.validateAuthResponse(s.as, s.reg.client, await loginOverHttp(req.url), req.state);
  return { params, verifier: req.verifier };
}

async function codeGrant(s: Setup, code: Awaited<ReturnType<typeof authorizationCode>>, dpop?: oauth.DPoPHandle) {
  const response = await oauth.authorizationCodeGrantRequest(s.as, s.reg.client, s.reg.auth, code.params, REDIRECT_URI, code.verifier, {
    ...insecure,
    ...(dpop ? { DPoP: dpop } : {}),
  });
  return oauth.processAuthorizationCodeResponse(s.as, s.reg.client, response);
}

/** The code flow, the token request carrying a proof when a DPoP handle is given. */
async function login(s: Setup, dpop?: oauth.DPoPHandle) {
  const code = await authorizationCode(s);
  return onceMoreOnNonce(() => codeGrant(s, code, dpop));
}

async function refresh(s: Setup, refreshToken: string, dpop?: oauth.DPoPHandle) {
  return onceMoreOnNonce(async () =>
    oauth.processRefreshTokenResponse(s.as, s.reg.client, await oauth.refreshTokenGrantRequest(s.as, s.reg.client, s.reg.auth, refreshToken, { ...insecure, ...(dpop ? { DPoP: dpop } : {}) })),
  );
}

async function apiCall(s: Setup, accessToken: string, dpop: oauth.DPoPHandle, path = '/api/courses') {
  const response = await onceMoreOnNonce(() => oauth.protectedResourceRequest(accessToken, 'GET', new URL(`${s.sb.baseUrl}${path}`), undefined, undefined, { ...insecure, DPoP: dpop }));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function userinfo(s: Setup, accessToken: string, dpop: oauth.DPoPHandle) {
  return onceMoreOnNonce(async () =>
    oauth.processUserInfoResponse(s.as, s.reg.client, oauth.skipSubjectCheck, await oauth.userInfoRequest(s.as, s.reg.client, accessToken, { ...insecure, DPoP: dpop })),
  );
}

async function thumbprintOf(keys: CryptoKeyPair): Promise<string> {
  return calculateJwkThumbprint(await exportJWK(keys.publicKey), 'sha256');
}

const athOf = (token: string) => createHash('sha256').update(token).digest('base64url');

interface ProofClaims {
  htm: string;
  htu: string;
  ath?: string;
  nonce?: string;
  iat?: number;
  jti?: string;
}

/** A DPoP proof with exactly the claims given (iat now and a new jti unless given). */
async function proof(keys: CryptoKeyPair, claims: ProofClaims, alg = 'ES256'): Promise<string> {
  return new SignJWT({ iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...claims }).setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) }).sign(keys.privateKey);
}

async function rawGet(url: string, authorization: string, dpopProof?: string) {
  const response = await fetch(url, { headers: { authorization, ...(dpopProof ? { dpop: dpopProof } : {}) } });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: response.status, challenge: response.headers.get('www-authenticate'), nonce: response.headers.get('dpop-nonce'), body };
}

function expectDpopRefusal(answer: Awaited<ReturnType<typeof rawGet>>, error: string, description: string | RegExp, algs = DEFAULT_ALGS) {
  expect(answer.status).toBe(401);
  expect(answer.body).toMatchObject({ error });
  expect(answer.body.error_description).toMatch(description);
  expect(answer.challenge).toBe(`DPoP error="${error}", error_description="${String(answer.body.error_description)}", algs="${algs}"`);
}

describe('dpop-offered', () => {
  let s: Setup;
  let keys: CryptoKeyPair;
  let dpop: oauth.DPoPHandle;
  let bound: oauth.TokenEndpointResponse;
  beforeAll(async () => {
    s = await setUp(['dpop-offered']);
    keys = await oauth.generateKeyPair('ES256');
    dpop = oauth.DPoP(s.reg.client, keys);
    bound = await login(s, dpop);
  });
  afterAll(async () => {
    await s?.sb.close();
  });

  it('advertises ES256 among its DPoP algorithms, at the authorization server and the resource', async () => {
    expect(s.as.dpop_signing_alg_values_supported).toEqual(['ES256', 'Ed25519', 'EdDSA']);
    const prm = await (await fetch(`${s.sb.baseUrl}/.well-known/oauth-protected-resource`)).json();
    expect(prm).toMatchObject({ dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'], dpop_bound_access_tokens_required: false });
  });

  it('issues DPoP-bound tokens to a login with a proof, and records the key', async () => {
    const jkt = await thumbprintOf(keys);
    expect(bound.token_type).toBe('dpop');
    expect(await s.sb.introspect(bound.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
    expect(eventsOf(s.sb, 'token').find((e) => e.grant_type === 'authorization_code' && e.ok)).toMatchObject({ dpop: jkt, token_type: 'DPoP' });
  });

  it('refreshes with a proof of the same key; a refresh without one is refused', async () => {
    const jkt = await thumbprintOf(keys);
    const tokens = await login(s, dpop);
    const refreshed = await refresh(s, tokens.refresh_token!, dpop);
    expect(refreshed.token_type).toBe('dpop');
    expect((await s.sb.introspect(refreshed.access_token)).cnf).toEqual({ jkt });
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ grant_type: 'refresh_token', ok: true, dpop: jkt, token_type: 'DPoP' });
    const err = await refresh(s, refreshed.refresh_token!).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant');
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ grant_type: 'refresh_token', ok: false, dpop: null });
  });

  it('serves the API and userinfo to a bound token with its proof, and records the scheme and key', async () => {
    const jkt = await thumbprintOf(keys);
    const api = await apiCall(s, bound.access_token, dpop);
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({ anonymous: false });
    expect(eventsOf(s.sb, 'api').at(-1)).toMatchObject({ path: '/api/courses', status: 200, authenticated: true, scheme: 'dpop', dpop: jkt });
    const claims = await userinfo(s, bound.access_token, dpop);
    expect(claims).toMatchObject({ sub: 'usr_1815_ada', name: 'Ada Lovelace' });
    expect(eventsOf(s.sb, 'userinfo').at(-1)).toMatchObject({ status: 200, scheme: 'dpop', dpop: jkt });
  });

  it('refuses a bound token replayed as a bearer token, or without its proof, with a DPoP challenge only', async () => {
    const asBearer = await rawGet(`${s.sb.baseUrl}/api/courses`, `Bearer ${bound.access_token}`);
    expectDpopRefusal(asBearer, 'invalid_token', 'the access token is bound to a DPoP key: send it with the DPoP scheme and a DPoP proof');
    expect(asBearer.challenge).not.toMatch(/Bearer/);
    expect(eventsOf(s.sb, 'api').at(-1)).toMatchObject({ status: 401, authenticated: false, scheme: 'bearer', dpop: null });
    const userinfoAsBearer = await rawGet(s.as.userinfo_endpoint!, `Bearer ${bound.access_token}`);
    expectDpopRefusal(userinfoAsBearer, 'invalid_token', 'the access token is bound to a DPoP key: send it with the DPoP scheme and a DPoP proof');
    expectDpopRefusal(await rawGet(`${s.sb.baseUrl}/api/courses`, `DPoP ${bound.access_token}`), 'invalid_token', 'a DPoP-bound access token needs a DPoP proof');
    const unknown = await rawGet(`${s.sb.baseUrl}/api/courses`, 'DPoP not-a-token', await proof(keys, { htm: 'GET', htu: `${s.sb.baseUrl}/api/courses`, ath: athOf('not-a-token') }));
    expectDpopRefusal(unknown, 'invalid_token', 'the access token is unknown, expired or revoked');
  });

  it('accepts a proof made here with every claim right (the query is no part of htu)', async () => {
    const ok = await rawGet(`${s.sb.baseUrl}/api/courses?page=1`, `DPoP ${bound.access_token}`, await proof(keys, { htm: 'GET', htu: `${s.sb.baseUrl}/api/courses`, ath: athOf(bound.access_token) }));
    expect(ok.status).toBe(200);
    expect(ok.nonce).toBeNull();
  });

  it('refuses a proof for another method, URL or key, with a wrong ath, a replayed jti or an old iat', async () => {
    const url = `${s.sb.baseUrl}/api/courses`;
    const auth = `DPoP ${bound.access_token}`;
    const ath = athOf(bound.access_token);
    const refused = async (p: string, description: RegExp) => expectDpopRefusal(await rawGet(url, auth, p), 'invalid_dpop_proof', description);

    await refused(await proof(keys, { htm: 'POST', htu: url, ath }), /htm does not match the request method GET/);
    await refused(await proof(keys, { htm: 'GET', htu: `${s.sb.baseUrl}/api/students`, ath }), /htu does not match the request URL/);
    await refused(await proof(keys, { htm: 'GET', htu: `http://localhost:${new URL(url).port}/api/courses`, ath }), /htu does not match/);
    await refused(await proof(await oauth.generateKeyPair('ES256'), { htm: 'GET', htu: url, ath }), /key is not the key the access token is bound to/);
    await refused(await proof(keys, { htm: 'GET', htu: url, ath: athOf('another-token') }), /ath does not match the access token/);
    await refused(await proof(keys, { htm: 'GET', htu: url }), /ath does not match the access token/);
    await refused(await proof(keys, { htm: 'GET', htu: url, ath, iat: Math.floor(Date.now() / 1000) - 120 }), /iat is not within 60 seconds/);
    await refused(await proof(keys, { htm: 'GET', htu: url, ath, iat: Math.floor(Date.now() / 1000) + 120 }), /iat is not within 60 seconds/);
    await refused('not.a.proof', /not a dpop\+jwt/);

    const once = await proof(keys, { htm: 'GET', htu: url, ath });
    expect((await rawGet(url, auth, once)).status).toBe(200);
    await refused(once, /jti was seen before/);
    expect(eventsOf(s.sb, 'api').at(-1)).toMatchObject({ status: 401, scheme: 'dpop', dpop: await thumbprintOf(keys) });
  });

  it('refuses an unbound token sent with the DPoP scheme, and still serves it as a bearer token', async () => {
    const plain = await login(s);
    expect(plain.token_type).toBe('bearer');
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ ok: true, dpop: null, token_type: 'Bearer' });
    const url = `${s.sb.baseUrl}/api/courses`;
    const withProof = await proof(keys, { htm: 'GET', htu: url, ath: athOf(plain.access_token) });
    expectDpopRefusal(await rawGet(url, `DPoP ${plain.access_token}`, withProof), 'invalid_token', 'the access token is not bound to a DPoP key: send it with the Bearer scheme');
    const asBearer = await rawGet(url, `Bearer ${plain.access_token}`);
    expect(asBearer.status).toBe(200);
    expect(eventsOf(s.sb, 'api').at(-1)).toMatchObject({ status: 200, scheme: 'bearer', dpop: null });
  });

  it('records the key of a proof sent to the revocation endpoint', async () => {
    const tokens = await login(s, dpop);
    // oauth4webapi sends no proof to the revocation endpoint; a client may.
    const endpoint = s.as.revocation_endpoint!;
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await proof(keys, { htm: 'POST', htu: endpoint }) },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: s.reg.client.client_id }),
    });
    expect(response.status).toBe(200);
    expect(eventsOf(s.sb, 'revoke').at(-1)).toMatchObject({ ok: true, revoked: 'refresh_token', dpop: await thumbprintOf(keys) });
  });
});

describe('dpop-required', () => {
  let s: Setup;
  let keys: CryptoKeyPair;
  beforeAll(async () => {
    s = await setUp(['dpop-required', 'par-offered']);
    keys = await oauth.generateKeyPair('ES256');
  });
  afterAll(async () => {
    await s?.sb.close();
  });

  it('registers every client for DPoP-bound tokens and refuses a token request without a proof', async () => {
    expect(s.reg.client.dpop_bound_access_tokens).toBe(true);
    const optedOut = await register(s.as, { dpop_bound_access_tokens: false });
    expect(optedOut.client.dpop_bound_access_tokens).toBe(true);
    const code = await authorizationCode(s);
    const err = await codeGrant(s, code).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(oauth.ResponseBodyError);
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_grant');
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ ok: false, error: 'invalid_grant', dpop: null });
    // The same code with a proof is served: the proof was all that was missing.
    const dpop = oauth.DPoP(s.reg.client, keys);
    expect((await onceMoreOnNonce(() => codeGrant(s, code, dpop))).token_type).toBe('dpop');
    const prm = await (await fetch(`${s.sb.baseUrl}/.well-known/oauth-protected-resource`)).json();
    expect(prm).toMatchObject({ dpop_bound_access_tokens_required: true });
  });

  it('answers a proof without a nonce with use_dpop_nonce and a DPoP-Nonce, then issues bound tokens', async () => {
    const dpop = oauth.DPoP(s.reg.client, keys);
    const code = await authorizationCode(s);
    const first = await codeGrant(s, code, dpop).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(oauth.isDPoPNonceError(first)).toBe(true);
    expect(((first as oauth.ResponseBodyError).response.headers.get('dpop-nonce') ?? '').length).toBeGreaterThan(10);
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ ok: false, error: 'use_dpop_nonce', dpop: await thumbprintOf(keys) });
    const tokens = await codeGrant(s, code, dpop);
    expect(tokens.token_type).toBe('dpop');
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ ok: true, token_type: 'DPoP', dpop: await thumbprintOf(keys) });
    const refreshed = await refresh(s, tokens.refresh_token!, dpop);
    expect(refreshed.token_type).toBe('dpop');
  });

  it('asks for a nonce at the PAR endpoint too', async () => {
    const dpop = oauth.DPoP(s.reg.client, keys);
    const params = new URLSearchParams({
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      scope: SCOPE,
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    });
    const push = async () => oauth.processPushedAuthorizationResponse(s.as, s.reg.client, await oauth.pushedAuthorizationRequest(s.as, s.reg.client, s.reg.auth, params, { ...insecure, DPoP: dpop }));
    const first = await push().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(oauth.isDPoPNonceError(first)).toBe(true);
    expect(eventsOf(s.sb, 'par').at(-1)).toMatchObject({ ok: false, error: 'use_dpop_nonce', dpop: await thumbprintOf(keys) });
    expect((await push()).request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(eventsOf(s.sb, 'par').at(-1)).toMatchObject({ ok: true, dpop: await thumbprintOf(keys) });
  });

  it('the API and userinfo ask for their own nonce, accept it, and send it on every answer to a proof', async () => {
    const dpop = oauth.DPoP(s.reg.client, keys);
    const tokens = await login(s, dpop);
    const url = `${s.sb.baseUrl}/api/courses`;
    const auth = `DPoP ${tokens.access_token}`;
    const ath = athOf(tokens.access_token);

    const challenged = await rawGet(url, auth, await proof(keys, { htm: 'GET', htu: url, ath }));
    expectDpopRefusal(challenged, 'use_dpop_nonce', 'the resource server requires a DPoP nonce');
    expect(challenged.nonce).toMatch(/^[\w-]{20,}$/);
    const wrong = await rawGet(url, auth, await proof(keys, { htm: 'GET', htu: url, ath, nonce: 'made-up' }));
    expectDpopRefusal(wrong, 'use_dpop_nonce', 'the DPoP nonce is not valid or has expired');
    expect(wrong.nonce).toBe(challenged.nonce);
    const served = await rawGet(url, auth, await proof(keys, { htm: 'GET', htu: url, ath, nonce: challenged.nonce! }));
    expect(served.status).toBe(200);
    expect(served.nonce).toBe(challenged.nonce);

    // The same through oauth4webapi: challenged once, then served.
    const fresh = oauth.DPoP(s.reg.client, keys);
    const first = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(url), undefined, undefined, { ...insecure, DPoP: fresh }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(oauth.isDPoPNonceError(first)).toBe(true);
    expect((await apiCall(s, tokens.access_token, fresh)).status).toBe(200);
    const fresh2 = oauth.DPoP(s.reg.client, keys);
    expect(await userinfo(s, tokens.access_token, fresh2)).toMatchObject({ sub: 'usr_1815_ada' });
    const infos = eventsOf(s.sb, 'userinfo').slice(-2);
    expect(infos.map((e) => e.status)).toEqual([401, 200]);
    expect(infos[0]).toMatchObject({ error: 'use_dpop_nonce', scheme: 'dpop' });
  });
});

describe('dpop-nonce-loop', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(['dpop-nonce-loop']);
  });
  afterAll(async () => {
    await s?.sb.close();
  });

  it('answers every token request with a proof use_dpop_nonce and a new nonce, and serves one without a proof', async () => {
    const keys = await oauth.generateKeyPair('ES256');
    const dpop = oauth.DPoP(s.reg.client, keys);
    expect(s.as.dpop_signing_alg_values_supported).toContain('ES256');
    const code = await authorizationCode(s);
    const nonces: string[] = [];
    for (let i = 0; i < 5; i++) {
      const err = await codeGrant(s, code, dpop).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(oauth.isDPoPNonceError(err)).toBe(true);
      const response = (err as oauth.ResponseBodyError).response;
      expect(response.status).toBe(400);
      nonces.push(response.headers.get('dpop-nonce') ?? '');
    }
    expect(new Set(nonces).size).toBe(5);
    expect(nonces.every((n) => n.length > 10)).toBe(true);
    const loops = eventsOf(s.sb, 'token').slice(-5);
    expect(loops.every((e) => e.error === 'use_dpop_nonce' && e.dpop === loops[0]!.dpop && e.status === 400)).toBe(true);
    expect(loops[0]!.dpop).toBe(await thumbprintOf(keys));
    const tokens = await codeGrant(s, code);
    expect(tokens.token_type).toBe('bearer');
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ ok: true, token_type: 'Bearer', dpop: null });
  });
});

describe('dpop-api-nonce-loop', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(['dpop-api-nonce-loop']);
  });
  afterAll(async () => {
    await s?.sb.close();
  });

  it('issues and refreshes bound tokens, but the API and userinfo ask for a new nonce every time', async () => {
    const keys = await oauth.generateKeyPair('ES256');
    const dpop = oauth.DPoP(s.reg.client, keys);
    const tokens = await login(s, dpop);
    expect(tokens.token_type).toBe('dpop');
    const refreshed = await refresh(s, tokens.refresh_token!, dpop);
    expect(refreshed.token_type).toBe('dpop');
    for (const url of [`${s.sb.baseUrl}/api/courses`, s.as.userinfo_endpoint!]) {
      const nonces: string[] = [];
      let nonce: string | undefined;
      for (let i = 0; i < 4; i++) {
        const answer = await rawGet(url, `DPoP ${refreshed.access_token}`, await proof(keys, { htm: 'GET', htu: url, ath: athOf(refreshed.access_token), ...(nonce ? { nonce } : {}) }));
        expectDpopRefusal(answer, 'use_dpop_nonce', 'the resource server requires a fresh DPoP nonce');
        nonce = answer.nonce!;
        nonces.push(nonce);
      }
      expect(new Set(nonces).size).toBe(4);
    }
    const err = await apiCall(s, refreshed.access_token, dpop).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(oauth.isDPoPNonceError(err)).toBe(true);
  });

  it('serves a client that sends no proof with bearer tokens', async () => {
    const reg = await register(s.as);
    const tokens = await login({ ...s, reg });
    expect(tokens.token_type).toBe('bearer');
    expect((await rawGet(`${s.sb.baseUrl}/api/courses`, `Bearer ${tokens.access_token}`)).status).toBe(200);
  });
});

describe('dpop-other-algs', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp(['dpop-other-algs']);
  });
  afterAll(async () => {
    await s?.sb.close();
  });

  it('lists PS256 alone, refuses an ES256 proof, and logs a client without a proof in with bearer tokens', async () => {
    expect(s.as.dpop_signing_alg_values_supported).toEqual(['PS256']);
    const prm = await (await fetch(`${s.sb.baseUrl}/.well-known/oauth-protected-resource`)).json();
    expect(prm).toMatchObject({ dpop_signing_alg_values_supported: ['PS256'] });
    const es256 = oauth.DPoP(s.reg.client, await oauth.generateKeyPair('ES256'));
    const err = await codeGrant(s, await authorizationCode(s), es256).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as oauth.ResponseBodyError).error).toBe('invalid_dpop_proof');
    const tokens = await login(s);
    expect(tokens.token_type).toBe('bearer');
    expect((await rawGet(`${s.sb.baseUrl}/api/courses`, `Bearer ${tokens.access_token}`)).status).toBe(200);
  });

  it('accepts a PS256 proof, at the token endpoint and the API', async () => {
    const keys = await oauth.generateKeyPair('PS256');
    const dpop = oauth.DPoP(s.reg.client, keys);
    const tokens = await login(s, dpop);
    expect(tokens.token_type).toBe('dpop');
    expect((await apiCall(s, tokens.access_token, dpop)).status).toBe(200);
    const url = `${s.sb.baseUrl}/api/courses`;
    const asBearer = await rawGet(url, `Bearer ${tokens.access_token}`);
    expectDpopRefusal(asBearer, 'invalid_token', /bound to a DPoP key/, 'PS256');
  });
});

describe('the default sandbox', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp([]);
  });
  afterAll(async () => {
    await s?.sb.close();
  });

  it('offers no DPoP: a proof is ignored at the token endpoint (but recorded) and the tokens are bearer tokens', async () => {
    expect(s.as.dpop_signing_alg_values_supported).toBeUndefined();
    const prm = (await (await fetch(`${s.sb.baseUrl}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(prm.dpop_signing_alg_values_supported).toBeUndefined();
    const keys = await oauth.generateKeyPair('ES256');
    const tokens = await login(s, oauth.DPoP(s.reg.client, keys));
    expect(tokens.token_type).toBe('bearer');
    expect((await s.sb.introspect(tokens.access_token)).cnf).toBeUndefined();
    expect(eventsOf(s.sb, 'token').at(-1)).toMatchObject({ ok: true, token_type: 'Bearer', dpop: await thumbprintOf(keys) });
    const url = `${s.sb.baseUrl}/api/courses`;
    expect((await rawGet(url, `Bearer ${tokens.access_token}`)).status).toBe(200);
    expect(eventsOf(s.sb, 'api').at(-1)).toMatchObject({ status: 200, scheme: 'bearer', dpop: null });
    const withProof = await proof(keys, { htm: 'GET', htu: url, ath: athOf(tokens.access_token) });
    expectDpopRefusal(await rawGet(url, `DPoP ${tokens.access_token}`, withProof), 'invalid_token', 'the access token is not bound to a DPoP key: send it with the Bearer scheme');
    expect(eventsOf(s.sb, 'api').at(-1)).toMatchObject({ status: 401, scheme: 'dpop', dpop: await thumbprintOf(keys) });
  });

  it('still answers an unknown bearer token with the Bearer challenge', async () => {
    const answer = await rawGet(`${s.sb.baseUrl}/api/courses`, 'Bearer not-a-token');
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe(
      `Bearer error="invalid_token", error_description="the access token is unknown, expired or revoked", resource_metadata="${s.sb.baseUrl}/.well-known/oauth-protected-resource"`,
    );
  });
});
