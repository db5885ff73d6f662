// Variants of the sandbox: each makes one choice that the OAuth 2.0 / OpenID Connect
// specifications allow but the default sandbox does not make, so that a client can be
// tested against servers shaped differently from the school platform. A test selects them
// with `startSandbox({ variants: [...] })`; they combine freely unless noted.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { dpopHeaderOf, proofThumbprint } from './dpop.js';
import type { DescriptionOptions } from './openapi.js';

import { ALL_SCOPES, DATA_SCOPES, isKnownScope } from './scopes.js';

/**
 * Every variant, with what it changes in words (`npm run sandbox -- --help` prints them): each is one
 * choice the specifications allow, a fault to be caught (hostile), or a shape seen in the field.
 */
export const VARIANT_NOTES = {
  'plain-oauth2': 'A plain OAuth 2.0 server: no userinfo endpoint, no OpenID discovery, `openid` (and the other OpenID scopes) neither advertised nor accepted, so no ID token either.',
  'no-userinfo': 'An OpenID provider without a userinfo endpoint: the ID token carries the claims.',
  'no-revocation': 'No revocation endpoint (it is OPTIONAL in RFC 8414).',
  'revocation-refuses-access-tokens': 'Access tokens cannot be revoked: `unsupported_token_type` (RFC 7009 §2.2.1).',
  'refresh-needs-offline-access': 'Refresh tokens only when `offline_access` is granted (OpenID Connect Core §11); the scope is advertised.',
  'nonce-required': '`nonce` is required whenever `openid` is asked for.',
  'no-public-clients': 'No `none` among the client authentication methods: client_secret_post and _basic.',
  'basic-auth-only': 'client_secret_basic only, for the token, revocation and introspection endpoints.',
  'rotates-public-clients-only':
    "Refresh tokens rotate for public clients only (oidc-provider's own default policy, and what the platform was measured to do): a confidential client's refresh token stays the same.",
  'endpoint-auth-registered-only':
    "A server that disagrees with its own metadata (Glewlwyd 2.7.5 does): the revocation and introspection endpoints accept only the method a client registered with, while their metadata lists client_secret_basic alone; the token endpoint's list is the default one.",
  'token-401-empty': 'The token endpoint answers every request with a 401 and an empty body.',
  'registration-html-400': 'Registration answers an HTML page with status 400.',
  'registration-200': 'Registration succeeds but answers 200 instead of 201 (RFC 7591 §3.2.1).',
  'registration-500': 'Registration answers 500 with a plain-text body.',
  'registration-error-text-plain': 'Registration refuses with an OAuth error body (400, invalid_client_metadata) sent as text/plain.',
  'unknown-scopes': "The scope list holds no scope a school client knows; a request without `scope` gets the server's default (RFC 6749 §3.3).",
  'narrows-granted-scope': 'One scope that is asked for and advertised is never granted (RFC 6749 §3.3).',
  'no-resource-metadata': 'No RFC 9728 protected-resource metadata.',
  'issuer-path':
    'An issuer with a path (/tenant): RFC 8414 metadata at the path-insertion URL (/.well-known/oauth-authorization-server/tenant), OpenID discovery at the appended URL (/tenant/.well-known/openid-configuration), endpoints under the path. Combines with the discovery variants below.',
  'metadata-path-insertion-only': 'An issuer with a path, its RFC 8414 document only at the path-insertion URL; no OpenID discovery.',
  'metadata-root-only': 'RFC 8414 document only at the root (/.well-known/oauth-authorization-server); no OpenID discovery.',
  'openid-discovery-only': 'OpenID discovery only: no /.well-known/oauth-authorization-server.',
  'no-iss-parameter': 'No RFC 9207 `iss` in the authorization response, and none promised in the metadata.',
  'userinfo-other-subject': "Not a legal choice but a fault to be caught: userinfo answers for another subject than the ID token's (OpenID Connect Core §5.3.4 says such a response must not be used).",
  'par-offered': 'Pushed authorization requests (RFC 9126) offered: pushed_authorization_request_endpoint in the metadata, plain authorization requests still accepted.',
  'par-required': 'Pushed authorization requests required (require_pushed_authorization_requests): an authorization request that was not pushed is refused.',
  'par-foreign-endpoint': 'Hostile: the metadata puts the PAR endpoint on another origin (http://localhost:<port>, served by this same sandbox, so that any request sent there is seen).',
  'par-foreign-request-uri': 'Hostile: the PAR endpoint answers a request_uri that is a URL on another origin.',
  'registration-management':
    "Client registration management (RFC 7592): registration answers carry registration_client_uri and registration_access_token, and the client can be read and deleted there. Without it (the platform's interface), registration answers carry neither.",
  'registration-foreign-client-uri':
    'Hostile: as registration-management, but the registration_client_uri is on another origin (http://localhost:<port>, this same sandbox, so that any request sent there is seen).',
  'registration-delete-fails': 'Registration management whose delete fails (500), for the warning at logout.',
  'device-authorization':
    'The device authorization grant (RFC 8628): device_authorization_endpoint in the metadata, the grant in grant_types_supported, and device pages the browser driver can drive.',
  'device-interval-short':
    "The device authorization answer names an interval of 1 s between polls (the grant's default, when none is named, is 5 s), so the journeys of a poller need not wait 5 s a poll.",
  'device-interval-zero': 'Hostile: the device authorization answer asks for an interval of 0 between polls.',
  'device-interval-huge': 'Hostile: the device authorization answer asks for an interval of 1e9 seconds.',
  'dpop-offered': 'DPoP (RFC 9449) offered: dpop_signing_alg_values_supported in the metadata (ES256 among them), no nonces; a client that sends no proof still gets bearer tokens.',
  'dpop-required':
    'DPoP required, with nonces: every client is registered with dpop_bound_access_tokens, so a token request without a proof is refused; the token and PAR endpoints, the API and userinfo answer use_dpop_nonce (with a DPoP-Nonce header) to a proof without a fresh nonce.',
  'dpop-nonce-loop': 'Hostile: the token endpoint answers every request carrying a DPoP proof with use_dpop_nonce and a new nonce, forever; requests without a proof are served.',
  'dpop-api-nonce-loop': 'Hostile: tokens are issued as in dpop-offered, but the API and userinfo answer every request carrying a DPoP proof with use_dpop_nonce and a new nonce, forever.',
  'dpop-other-algs': 'DPoP offered with PS256 alone among dpop_signing_alg_values_supported (and accepted).',
  'cli-names': 'The description gives some operations an `x-cli-name` (CLI_NAMES in openapi.ts), the name a command line uses instead of the one made from the operationId.',
  'large-description': "A large description: the platform's operations padded with synthetic ones (served under /api/synthetic/) to LARGE_DESCRIPTION_OPERATIONS in all, for measuring clients.",
  // Servers as they are (each one shape seen in the field):
  'secret-without-expiry': 'A registration answer with a client_secret but no client_secret_expires_at (RFC 7591 requires it).',
  'public-made-confidential': 'A public registration (token_endpoint_auth_method none, or none named) is registered as a confidential client_secret_post one, and answered as such.',
  'api-under-path':
    'The API is mounted under a path: the base URL is <origin>/school, its protected-resource metadata is at /.well-known/oauth-protected-resource/school only, naming <origin>/school.',
  'metadata-at-origin-only': "The API under a path, its protected-resource metadata only at the origin's address, naming the origin as the resource (tokens are issued for the origin).",
  'metadata-by-challenge-only':
    'No protected-resource metadata at either well-known address: a request without a token to the base URL or the API is answered 401 with a Bearer challenge naming resource_metadata (at /meta/protected-resource.json) and the scope courses:read.',
  'metadata-by-write-challenge-only':
    "No protected-resource metadata at either well-known address, and none through a GET: a GET (or HEAD) of the API's root without a token is answered 404, and only a write without a token (a POST, PUT, PATCH or DELETE to the API) is answered 401 with a Bearer challenge naming resource_metadata (at /meta/protected-resource.json) and the scope courses:write. Combined with issuer-path, nothing at the base URL leads to the authorization server but that challenge.",
  'scopes-in-resource-only': "The authorization server lists no scopes_supported; the resource's metadata lists its scopes.",
  'no-registration-endpoint': 'No registration endpoint: clients are registered out of band (PRE_REGISTERED_CLIENTS).',
  'dpop-not-accepted-by-api':
    "The authorization server offers DPoP, the API takes bearer tokens only: its metadata says nothing of DPoP and it refuses the DPoP scheme (as an API in front of better-auth's provider does).",
} as const;

export type SandboxVariant = keyof typeof VARIANT_NOTES;
export const SANDBOX_VARIANTS = Object.keys(VARIANT_NOTES) as readonly SandboxVariant[];

export type Variants = ReadonlySet<SandboxVariant>;

/** How many operations the `large-description` variant describes. */
export const LARGE_DESCRIPTION_OPERATIONS = 500;

/** What the variant changes in the API description. */
export function descriptionOptions(v: Variants): DescriptionOptions {
  return {
    ...(v.has('cli-names') ? { cliNames: true } : {}),
    ...(v.has('large-description') ? { totalOperations: LARGE_DESCRIPTION_OPERATIONS } : {}),
  };
}

/** Where the API is mounted in the variants that put it under a path. */
export const API_PATH = '/school';
/** The clients of the `no-registration-endpoint` variant, registered out of band. */
export const PRE_REGISTERED_CLIENTS = {
  public: { client_id: 'school-cli-preregistered' },
  confidential: { client_id: 'school-cli-confidential', client_secret: 'sandbox-preregistered-secret-0123456789' },
} as const;
/** Where the `metadata-by-challenge-only` variant's protected-resource metadata lives. */
export const CHALLENGE_METADATA_PATH = '/meta/protected-resource.json';
/** The scope the `metadata-by-challenge-only` variant's challenge names. */
export const CHALLENGE_SCOPE = 'courses:read';
/** The scope the `metadata-by-write-challenge-only` variant's challenge of a write names. */
export const WRITE_CHALLENGE_SCOPE = 'courses:write';

/** The path the API is mounted under ('' at the origin). */
export function apiPath(v: Variants): string {
  return v.has('api-under-path') || v.has('metadata-at-origin-only') ? API_PATH : '';
}

/** The API's resource identifier: its base URL, or the origin where only the origin has metadata. */
export function resourceIdentifier(v: Variants, baseUrl: string): string {
  return v.has('metadata-at-origin-only') ? new URL(baseUrl).origin : baseUrl;
}

/** Whether the API accepts DPoP-bound tokens (and says so in its metadata). */
export function resourceAcceptsDpop(v: Variants): boolean {
  return usesDpop(v) && !v.has('dpop-not-accepted-by-api');
}

/** The path of the issuer in the variants whose issuer has one. */
export const ISSUER_PATH = '/tenant';
/** The scopes of the `unknown-scopes` variant (the first is the server's default). */
export const FOREIGN_SCOPES = ['api', 'api.admin'] as const;
/** Who the `userinfo-other-subject` variant's userinfo claims the user is. */
export const OTHER_SUBJECT = { sub: 'usr_0000_mallory', name: 'Mallory Mallet', email: 'mallory@example.edu' } as const;
/** The scope the `narrows-granted-scope` variant never grants. */
export const WITHHELD_SCOPE = 'analytics:read';

export function hasIssuerPath(v: Variants): boolean {
  return v.has('issuer-path') || v.has('metadata-path-insertion-only');
}

/** Every scope the provider must know of (oidc-provider drops the ones it does not). */
export function providerScopes(v: Variants): string[] {
  const scopes = [...ALL_SCOPES];
  if (v.has('refresh-needs-offline-access')) scopes.push('offline_access');
  if (v.has('unknown-scopes')) scopes.push(...FOREIGN_SCOPES);
  return scopes;
}

/** The scopes advertised in `scopes_supported`, and the only ones accepted. */
function supportedScopes(v: Variants): string[] {
  if (v.has('unknown-scopes')) return [...FOREIGN_SCOPES];
  const scopes: string[] = v.has('plain-oauth2') ? [...DATA_SCOPES] : [...ALL_SCOPES];
  if (v.has('refresh-needs-offline-access')) scopes.push('offline_access');
  return scopes;
}

export function acceptsScope(v: Variants, scope: string): boolean {
  if (v.size === 0) return isKnownScope(scope);
  return supportedScopes(v).includes(scope);
}

/** The scopes the API resource grants in access tokens. */
export function resourceScopes(v: Variants): string {
  return supportedScopes(v)
    .filter((s) => s !== 'offline_access' && !(v.has('narrows-granted-scope') && s === WITHHELD_SCOPE))
    .join(' ');
}

/** Client authentication methods at the token, revocation and introspection endpoints. */
export function clientAuthMethods(v: Variants): string[] {
  if (v.has('basic-auth-only')) return ['client_secret_basic'];
  if (v.has('no-public-clients')) return ['client_secret_post', 'client_secret_basic'];
  return ['none', 'client_secret_post'];
}

/** The method a client gets when it registers without naming one, and the resource server's. */
export function defaultClientAuthMethod(v: Variants): string {
  return v.has('basic-auth-only') ? 'client_secret_basic' : 'client_secret_post';
}

/** Problems with an authorization request that the variant refuses (after client checks). */
export function authorizationRequestProblem(v: Variants, scopes: string[], nonce: unknown): string | undefined {
  if (v.has('nonce-required') && scopes.includes('openid') && (typeof nonce !== 'string' || nonce === '')) {
    return 'nonce is required when the openid scope is requested';
  }
  return undefined;
}

/** Whether a refresh rotates the refresh token of a client with this authentication method. */
export function rotatesRefreshToken(v: Variants, rotate: boolean, clientAuthMethod: string | undefined): boolean {
  if (v.has('rotates-public-clients-only')) return rotate && clientAuthMethod === 'none';
  return rotate;
}

export function refreshTokenAllowed(v: Variants, grantedScopes: { has(scope: string): boolean }): boolean {
  return !v.has('refresh-needs-offline-access') || grantedScopes.has('offline_access');
}

// Fields of OpenID discovery that a plain OAuth 2.0 server does not publish.
const OPENID_ONLY_METADATA = [
  'userinfo_endpoint',
  'claims_supported',
  'claims_parameter_supported',
  'claim_types_supported',
  'id_token_signing_alg_values_supported',
  'subject_types_supported',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'require_request_uri_registration',
  'acr_values_supported',
  'end_session_endpoint',
  'check_session_iframe',
  'frontchannel_logout_supported',
  'backchannel_logout_supported',
];

export function usesPar(v: Variants): boolean {
  return v.has('par-offered') || v.has('par-required') || v.has('par-foreign-endpoint') || v.has('par-foreign-request-uri');
}

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export function usesDeviceFlow(v: Variants): boolean {
  return v.has('device-authorization') || v.has('device-interval-short') || v.has('device-interval-zero') || v.has('device-interval-huge');
}

export function managesRegistrations(v: Variants): boolean {
  return v.has('registration-management') || v.has('registration-foreign-client-uri') || v.has('registration-delete-fails');
}

export function usesDpop(v: Variants): boolean {
  return v.has('dpop-offered') || v.has('dpop-not-accepted-by-api') || v.has('dpop-required') || v.has('dpop-nonce-loop') || v.has('dpop-api-nonce-loop') || v.has('dpop-other-algs');
}

/** oidc-provider's own default DPoP algorithms. */
const DEFAULT_DPOP_ALGS = ['ES256', 'Ed25519', 'EdDSA'] as const;
/** The only DPoP algorithm of the `dpop-other-algs` variant. */
const OTHER_DPOP_ALGS = ['PS256'] as const;

/**
 * The algorithms DPoP proofs may be signed with, at the provider and the resource server alike
 * (the resource server checks proofs in every variant: a token is bound whenever a proof was sent).
 */
export function dpopSigningAlgs(v: Variants): string[] {
  return v.has('dpop-other-algs') ? [...OTHER_DPOP_ALGS] : [...DEFAULT_DPOP_ALGS];
}

/** How the API and userinfo treat DPoP nonces. */
export function resourceDpopNonces(v: Variants): 'none' | 'required' | 'loop' {
  if (v.has('dpop-api-nonce-loop')) return 'loop';
  if (v.has('dpop-required')) return 'required';
  return 'none';
}

/** The same host as the issuer's under another name: another origin, still this sandbox. */
function foreignOrigin(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//localhost:${u.port}`;
}

/** Rewrites the (already corrected) metadata document into the variant's. */
export function variantMetadata(doc: Record<string, unknown>, v: Variants): void {
  if (v.size === 0) return;
  doc.scopes_supported = supportedScopes(v);
  const methods = clientAuthMethods(v);
  doc.token_endpoint_auth_methods_supported = methods;
  doc.revocation_endpoint_auth_methods_supported = methods;
  doc.introspection_endpoint_auth_methods_supported = methods;
  if (v.has('endpoint-auth-registered-only')) {
    doc.revocation_endpoint_auth_methods_supported = ['client_secret_basic'];
    doc.introspection_endpoint_auth_methods_supported = ['client_secret_basic'];
  }
  if (v.has('plain-oauth2')) for (const key of OPENID_ONLY_METADATA) delete doc[key];
  if (v.has('scopes-in-resource-only')) delete doc.scopes_supported;
  if (v.has('no-registration-endpoint')) delete doc.registration_endpoint;
  if (v.has('no-userinfo')) delete doc.userinfo_endpoint;
  if (v.has('no-revocation')) {
    delete doc.revocation_endpoint;
    delete doc.revocation_endpoint_auth_methods_supported;
  }
  if (v.has('no-iss-parameter')) delete doc.authorization_response_iss_parameter_supported;
  if (!usesDeviceFlow(v)) delete doc.device_authorization_endpoint;
  else doc.grant_types_supported = [...(doc.grant_types_supported as string[]), DEVICE_CODE_GRANT];
  if (!usesPar(v)) {
    delete doc.pushed_authorization_request_endpoint;
    delete doc.require_pushed_authorization_requests;
  } else if (v.has('par-foreign-endpoint') && typeof doc.pushed_authorization_request_endpoint === 'string') {
    const endpoint = new URL(doc.pushed_authorization_request_endpoint);
    doc.pushed_authorization_request_endpoint = foreignOrigin(endpoint.href) + endpoint.pathname;
  }
}

function stripIss(location: string): string | undefined {
  try {
    const url = new URL(location);
    if (!url.searchParams.has('iss')) return undefined;
    url.searchParams.delete('iss');
    return url.href;
  } catch {
    return undefined;
  }
}

/** Adjusts an answer of the provider (koa context) after it was made. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function adjustProviderAnswer(ctx: any, v: Variants): void {
  if (v.size === 0) return;
  const route: string | undefined = ctx.oidc?.route;
  if (v.has('registration-200') && route === 'registration' && ctx.status === 201) ctx.status = 200;
  if (v.has('secret-without-expiry') && route === 'registration' && ctx.body && typeof ctx.body === 'object' && 'client_secret_expires_at' in ctx.body) {
    const { client_secret_expires_at: _expiry, ...rest } = ctx.body;
    ctx.body = rest;
  }
  if (v.has('registration-foreign-client-uri') && route === 'registration' && ctx.body?.registration_client_uri) {
    const uri = new URL(ctx.body.registration_client_uri);
    ctx.body = { ...ctx.body, registration_client_uri: foreignOrigin(uri.href) + uri.pathname };
  }
  if (route === 'device_authorization' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
    if (v.has('device-interval-short')) ctx.body = { ...ctx.body, interval: 1 };
    if (v.has('device-interval-zero')) ctx.body = { ...ctx.body, interval: 0 };
    if (v.has('device-interval-huge')) ctx.body = { ...ctx.body, interval: 1e9 };
  }
  if (v.has('registration-delete-fails') && route === 'client_delete') {
    ctx.status = 500;
    ctx.type = 'text/plain';
    ctx.body = 'Internal Server Error';
  }
  if (v.has('par-foreign-request-uri') && route === 'pushed_authorization_request' && ctx.status === 201 && ctx.body?.request_uri) {
    ctx.body = { ...ctx.body, request_uri: `${foreignOrigin(ctx.oidc.issuer)}/request/${encodeURIComponent(ctx.body.request_uri)}` };
  }
  if (v.has('no-iss-parameter') && (route === 'authorization' || route === 'resume')) {
    const location = ctx.response.get('location');
    const stripped = location ? stripIss(location) : undefined;
    if (stripped) ctx.set('location', stripped);
  }
}

export interface FrontDoorContext {
  variants: Variants;
  issuer: string;
  /** The API's resource identifier (its base URL, or its origin). */
  resource: string;
  /** The API's base URL. */
  baseUrl: string;
  routes: { authorization: string; token: string; registration: string; userinfo: string; revocation: string; introspection: string };
  /** Whether the value is an access token the provider issued (revoked or not). */
  isAccessToken(value: string): boolean;
  emit(type: string, fields: Record<string, unknown>): void;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, contentType: string | undefined, body: string, headers: Record<string, string> = {}) {
  res.statusCode = status;
  if (contentType) res.setHeader('Content-Type', contentType);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** A protected resource metadata document (RFC 9728) of a variant's own: the resource, its server, and the scopes given. */
function answerResourceMetadata(res: ServerResponse, ctx: FrontDoorContext, scopes: readonly string[]): void {
  const document = { resource: ctx.resource, authorization_servers: [ctx.issuer], scopes_supported: [...scopes], bearer_methods_supported: ['header'] };
  answer(res, 200, 'application/json; charset=utf-8', JSON.stringify(document));
}

const notFound = (res: ServerResponse) => answer(res, 404, 'application/json; charset=utf-8', JSON.stringify({ error: 'not_found', error_description: 'no such endpoint' }));

/**
 * Runs before the sandbox's own routing. Answers what the variant answers differently (and
 * returns undefined), or returns the URL to route, rewritten where the issuer has a path.
 * May consume the body of a request it answers itself, and only then.
 */
export async function frontDoor(req: IncomingMessage, res: ServerResponse, url: URL, ctx: FrontDoorContext): Promise<URL | undefined> {
  const { variants: v, routes } = ctx;
  const path = url.pathname;
  const post = req.method === 'POST';

  // Raw record of every authorization request's scope parameter, as the client sent it.
  const authorizePath = hasIssuerPath(v) ? ISSUER_PATH + routes.authorization : routes.authorization;
  if (path === authorizePath && req.method === 'GET') {
    ctx.emit('authorize_request', { scope: url.searchParams.get('scope'), nonce_sent: url.searchParams.has('nonce'), params: [...url.searchParams.keys()] });
  }

  const blocked = new Set<string>();
  if (v.has('no-resource-metadata')) blocked.add('/.well-known/oauth-protected-resource');
  if (v.has('plain-oauth2') || v.has('metadata-root-only') || v.has('metadata-path-insertion-only')) {
    blocked.add('/.well-known/openid-configuration');
    blocked.add(`${ISSUER_PATH}/.well-known/openid-configuration`);
  }
  if (v.has('plain-oauth2') || v.has('no-userinfo')) blocked.add(routes.userinfo);
  if (hasIssuerPath(v) || v.has('openid-discovery-only')) blocked.add('/.well-known/oauth-authorization-server');
  if (hasIssuerPath(v)) blocked.add('/.well-known/openid-configuration');
  if (v.has('openid-discovery-only')) blocked.add(`/.well-known/oauth-authorization-server${ISSUER_PATH}`);
  if (v.has('no-revocation')) blocked.add(hasIssuerPath(v) ? ISSUER_PATH + routes.revocation : routes.revocation);
  if (blocked.has(path)) {
    notFound(res);
    return undefined;
  }

  const served = await serversAsTheyAre(req, res, url, ctx);
  if (served === undefined) return undefined;
  if (served !== url) {
    Object.assign(req, { originalUrl: req.url });
    req.url = `${served.pathname}${served.search}`;
    return served;
  }

  if (v.has('unknown-scopes') && path === '/.well-known/oauth-protected-resource' && req.method === 'GET') {
    // The API's own scope list follows the server's.
    answerResourceMetadata(res, ctx, FOREIGN_SCOPES);
    return undefined;
  }

  let routed = url;
  if (hasIssuerPath(v)) {
    let inner: string | undefined;
    if (path === `/.well-known/oauth-authorization-server${ISSUER_PATH}`) inner = '/.well-known/oauth-authorization-server';
    else if (path.startsWith(`${ISSUER_PATH}/`)) inner = path.slice(ISSUER_PATH.length);
    else if (Object.values(routes).includes(path)) {
      // The endpoints live under the issuer's path only.
      notFound(res);
      return undefined;
    }
    if (inner !== undefined) {
      routed = new URL(`${inner}${url.search}`, url);
      // oidc-provider builds its URLs with the mount path found by comparing these two.
      Object.assign(req, { originalUrl: req.url });
      req.url = `${inner}${url.search}`;
    }
  }

  const innerPath = routed.pathname;
  if (innerPath === routes.token && post && v.has('token-401-empty')) {
    await readAll(req);
    answer(res, 401, undefined, '');
    return undefined;
  }
  if (innerPath === routes.token && post && v.has('dpop-nonce-loop') && dpopHeaderOf(req) !== undefined) {
    const form = new URLSearchParams((await readAll(req)).toString('utf8'));
    ctx.emit('token', {
      grant_type: form.get('grant_type'),
      client_id: form.get('client_id') ?? undefined,
      ok: false,
      status: 400,
      error: 'use_dpop_nonce',
      dpop: await proofThumbprint(dpopHeaderOf(req)),
    });
    answer(
      res,
      400,
      'application/json; charset=utf-8',
      JSON.stringify({
        error: 'use_dpop_nonce',
        error_description: 'Authorization server requires nonce in DPoP proof',
      }),
      { 'DPoP-Nonce': randomBytes(16).toString('base64url'), 'Cache-Control': 'no-store' },
    );
    return undefined;
  }
  if (innerPath === routes.registration && post) {
    if (v.has('registration-html-400')) {
      await readAll(req);
      answer(res, 400, 'text/html; charset=utf-8', '<!doctype html><title>Bad Request</title><h1>400 Bad Request</h1><p>Your browser sent a request that this server could not understand.</p>');
      return undefined;
    }
    if (v.has('registration-error-text-plain')) {
      await readAll(req);
      answer(
        res,
        400,
        'text/plain; charset=utf-8',
        JSON.stringify({
          error: 'invalid_client_metadata',
          error_description: 'this server registers no clients today',
        }),
      );
      return undefined;
    }
    if (v.has('registration-500')) {
      await readAll(req);
      answer(res, 500, 'text/plain; charset=utf-8', 'Internal Server Error');
      return undefined;
    }
  }
  if ((innerPath === routes.revocation || innerPath === routes.introspection) && post && v.has('endpoint-auth-registered-only') && /^basic /i.test(req.headers.authorization ?? '')) {
    // Only client_secret_post (and none) can be registered here, so Basic is never the registered method.
    await readAll(req);
    ctx.emit(innerPath === routes.revocation ? 'revoke' : 'introspect', { ok: false, error: 'invalid_client', auth: 'client_secret_basic' });
    answer(
      res,
      401,
      'application/json; charset=utf-8',
      JSON.stringify({
        error: 'invalid_client',
        error_description: 'client authentication method does not match the registered one',
      }),
    );
    return undefined;
  }
  if (innerPath === routes.revocation && post && v.has('revocation-refuses-access-tokens')) {
    const raw = await readAll(req);
    const token = new URLSearchParams(raw.toString('utf8')).get('token');
    if (token && ctx.isAccessToken(token)) {
      ctx.emit('revoke', { ok: false, error: 'unsupported_token_type', revoked: null });
      answer(
        res,
        400,
        'application/json; charset=utf-8',
        JSON.stringify({
          error: 'unsupported_token_type',
          error_description: 'access tokens cannot be revoked here; they expire on their own',
        }),
      );
      return undefined;
    }
    // Not an access token: the provider handles it, with the body replayed.
    Object.assign(req, { replayBody: raw });
  }

  if (
    v.has('refresh-needs-offline-access') &&
    innerPath === routes.authorization &&
    req.method === 'GET' &&
    (routed.searchParams.get('scope') ?? '').split(' ').includes('offline_access') &&
    !routed.searchParams.has('prompt')
  ) {
    // OpenID Connect Core §11 lets a server honour offline_access without prompt=consent when
    // it obtains consent anyway, as this one always does; oidc-provider drops the scope
    // unless consent is prompted for, so the prompt is added here.
    routed.searchParams.set('prompt', 'consent');
    req.url = `${routed.pathname}?${routed.searchParams}`;
  }
  if (v.has('userinfo-other-subject') && innerPath === routes.userinfo && req.headers.authorization) {
    answer(res, 200, 'application/json; charset=utf-8', JSON.stringify(OTHER_SUBJECT));
    return undefined;
  }
  if (v.has('unknown-scopes') && innerPath === routes.authorization && req.method === 'GET' && !routed.searchParams.get('scope')) {
    // The server's default scope for a request that names none.
    routed.searchParams.set('scope', FOREIGN_SCOPES[0]);
    req.url = `${routed.pathname}?${routed.searchParams}`;
  }
  return routed;
}

/** Whether a path is one of the API's own (not the authorization server's, which lives under /api/oauth). */
function isApiPath(path: string): boolean {
  return path === '/' || (path.startsWith('/api/') && !path.startsWith('/api/oauth/'));
}

/**
 * The variants of servers as they are: answers what they answer differently (undefined), or the
 * URL to route (the API's path taken off where it is mounted under one).
 */
async function serversAsTheyAre(req: IncomingMessage, res: ServerResponse, url: URL, ctx: FrontDoorContext): Promise<URL | undefined> {
  const { variants: v, routes } = ctx;
  const path = url.pathname;
  const prmPath = '/.well-known/oauth-protected-resource';
  const mount = apiPath(v);
  if (mount) {
    if (path === `${prmPath}${mount}`) {
      if (v.has('metadata-at-origin-only')) {
        notFound(res);
        return undefined;
      }
      return new URL(`${prmPath}${url.search}`, url);
    }
    if (path === prmPath && !v.has('metadata-at-origin-only')) {
      notFound(res);
      return undefined;
    }
    if (path === mount || path.startsWith(`${mount}/`)) return new URL(`${path.slice(mount.length) || '/'}${url.search}`, url);
  }
  // Resource metadata only through a challenge: of any request without a token, or of a write alone.
  const byChallenge = v.has('metadata-by-challenge-only')
    ? { writesOnly: false, scope: CHALLENGE_SCOPE, why: 'this API needs an access token' }
    : v.has('metadata-by-write-challenge-only')
      ? { writesOnly: true, scope: WRITE_CHALLENGE_SCOPE, why: 'a write needs an access token' }
      : undefined;
  if (byChallenge) {
    if (path === prmPath || path.startsWith(`${prmPath}/`)) {
      notFound(res);
      return undefined;
    }
    if (path === CHALLENGE_METADATA_PATH && req.method === 'GET') {
      answerResourceMetadata(res, ctx, DATA_SCOPES);
      return undefined;
    }
    const reads = req.method === 'GET' || req.method === 'HEAD';
    if (byChallenge.writesOnly && path === '/' && reads && req.headers.authorization === undefined) {
      notFound(res);
      return undefined;
    }
    if (isApiPath(path) && !(byChallenge.writesOnly && reads) && req.headers.authorization === undefined) {
      await readAll(req);
      ctx.emit('challenge', { method: req.method, path });
      const metadataUrl = `${new URL(ctx.baseUrl).origin}${CHALLENGE_METADATA_PATH}`;
      answer(res, 401, 'application/json; charset=utf-8', JSON.stringify({ error: 'invalid_request', error_description: byChallenge.why }), {
        'WWW-Authenticate': `Bearer resource_metadata="${metadataUrl}", scope="${byChallenge.scope}"`,
      });
      return undefined;
    }
  }
  if (v.has('no-registration-endpoint') && path === routes.registration) {
    await readAll(req);
    notFound(res);
    return undefined;
  }
  if (v.has('dpop-not-accepted-by-api') && isApiPath(path) && /^dpop /i.test(req.headers.authorization ?? '')) {
    await readAll(req);
    ctx.emit('api', { method: req.method, path, status: 401, authenticated: false, scheme: 'dpop', refused: 'dpop_not_accepted' });
    answer(res, 401, 'application/json; charset=utf-8', JSON.stringify({ error: 'invalid_token', error_description: 'this API takes bearer tokens only' }), {
      'WWW-Authenticate': 'Bearer error="invalid_token", error_description="this API takes bearer tokens only"',
    });
    return undefined;
  }
  if (v.has('public-made-confidential') && path === routes.registration && req.method === 'POST') {
    const raw = await readAll(req);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      Object.assign(req, { replayBody: raw });
      return url;
    }
    if (body.token_endpoint_auth_method === undefined || body.token_endpoint_auth_method === 'none') body.token_endpoint_auth_method = 'client_secret_post';
    Object.assign(req, { replayBody: Buffer.from(JSON.stringify(body)) });
  }
  return url;
}

/** A body the front door had to read and left for the provider to replay. */
export function replayBodyOf(req: IncomingMessage): Buffer | undefined {
  const body: unknown = (req as IncomingMessage & { replayBody?: unknown }).replayBody;
  return Buffer.isBuffer(body) ? body : undefined;
}
