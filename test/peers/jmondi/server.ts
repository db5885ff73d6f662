// A second authorization server for the tests, built on @jmondi/oauth2-server (a TypeScript
// OAuth 2.0 server library) rather than oidc-provider, so that the CLI is proven against an
// implementation that makes other choices: a plain OAuth 2.0 server with JWT access and
// refresh tokens, no OpenID Connect (no ID token, no userinfo, no OpenID discovery), no RFC
// 9207 `iss`, refresh-token rotation as the library does it, and its own path layout.
//
// What the library does not have is written here: RFC 8414 metadata, RFC 7591 registration
// (open to loopback redirects), the sign-in and consent pages, RFC 9728 metadata and a small
// protected API. Everything is in memory and lives as long as the server.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import {
  AuthorizationServer,
  DateInterval,
  JwtService,
  OAuthException,
  OAuthRequest,
  isOAuthError,
  type AuthorizationRequest,
  type GrantIdentifier,
  type OAuthAuthCode,
  type OAuthAuthCodeRepository,
  type OAuthClient,
  type OAuthClientRepository,
  type OAuthResponse,
  type OAuthScope,
  type OAuthScopeRepository,
  type OAuthToken,
  type OAuthTokenRepository,
  type OAuthUser,
  type OAuthUserRepository,
} from '@jmondi/oauth2-server';

const HOST = '127.0.0.1';

// A path layout unlike the sandbox's: a client that hard-codes paths fails here.
export const PEER_ROUTES = {
  authorization: '/oauth2/authorize',
  token: '/oauth2/token',
  registration: '/oauth2/register',
  revocation: '/oauth2/revoke',
  introspection: '/oauth2/introspect',
  signIn: '/oauth2/sign-in',
  consent: '/oauth2/consent',
} as const;

export const PEER_SCOPES = ['account:read', 'courses:read', 'courses:write'] as const;
/** Granted when a request names no scope (RFC 6749 §3.3). */
export const PEER_DEFAULT_SCOPE = 'account:read';
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

export interface PeerUser {
  id: string;
  username: string;
  password: string;
  name: string;
}

export interface PeerEvent {
  at: number;
  type: string;
  [k: string]: unknown;
}

export interface PeerOptions {
  accessTokenTtl?: number; // seconds, default 3600
  quiet?: boolean;
  /**
   * Clients as a server that takes HTTP Basic credentials as sent (this library does not decode
   * them) meets them in the field: only client_secret_basic offered, and ids and secrets holding
   * `-`, `_`, `.` and `~`, which a client that percent-encodes them sends as other ids.
   */
  basicWithPunctuation?: boolean;
}

export interface Peer {
  baseUrl: string;
  issuer: string;
  users: PeerUser[];
  /** Never contains a token, code, verifier or secret. */
  events: PeerEvent[];
  /** What the server knows of a token it issued (an access or refresh token). */
  tokenState(token: string): Promise<'active' | 'revoked' | 'expired' | 'unknown'>;
  close(): Promise<void>;
}

interface StoredToken extends OAuthToken {
  revoked: boolean;
}

interface PendingAuthorization {
  request: AuthorizationRequest;
  user?: PeerUser;
  expiresAt: number;
}

// Hex only: the library does not form-decode client_secret_basic credentials (RFC 6749
// §2.3.1), so a client id or secret with characters that clients percent-encode, such as
// '-', would never match. Hex is the same encoded or not.
function randomId(bytes = 24): string {
  return randomBytes(bytes).toString('hex');
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

// RFC 8252 §7.3 loopback redirects only, of the form http://127.0.0.1:<port>/<path>.
function isLoopbackRedirect(uri: unknown): boolean {
  return typeof uri === 'string' && /^http:\/\/127\.0\.0\.1:\d{1,5}\/[^#]*$/.test(uri) && URL.canParse(uri);
}

// The library's own rule for redirect URIs: loopback ports may differ (RFC 8252 §7.3).
function sameIgnoringPort(a: string, b: string): boolean {
  if (!URL.canParse(a) || !URL.canParse(b)) return false;
  const x = new URL(a);
  const y = new URL(b);
  return x.protocol === y.protocol && x.hostname === y.hostname && x.pathname === y.pathname && x.search === y.search;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` + `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  send(res, status, JSON.stringify(body), { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
}

function sendOAuthResponse(res: ServerResponse, answer: OAuthResponse) {
  const location = answer.get('location');
  if (answer.status === 302 && typeof location === 'string') {
    send(res, 302, '', { location });
    return;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.headers)) if (typeof v === 'string') headers[k] = v;
  sendJson(res, answer.status, answer.body, headers);
}

function sendOAuthError(res: ServerResponse, err: unknown) {
  if (isOAuthError(err) && err instanceof OAuthException) {
    sendJson(res, err.status, { error: err.errorType, error_description: err.errorDescription ?? err.error });
    return;
  }
  sendJson(res, 500, { error: 'server_error', error_description: 'the server failed to handle this request' });
}

export async function startPeer(opts: PeerOptions = {}): Promise<Peer> {
  const quiet = opts.quiet ?? false;
  const accessTokenTtl = new DateInterval(`${opts.accessTokenTtl ?? 3600}s`);
  const refreshTokenTtl = new DateInterval('14d');
  const events: PeerEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => events.push({ at: Date.now(), type, ...fields });
  const users: PeerUser[] = [
    { id: 'u-0001', username: 'ada', password: 'lovelace', name: 'Ada Lovelace' },
    { id: 'u-0002', username: 'alan', password: 'turing', name: 'Alan Turing' },
  ];
  const scopes: OAuthScope[] = PEER_SCOPES.map((name) => ({ name }));

  const clients = new Map<string, OAuthClient>();
  const authMethods = opts.basicWithPunctuation ? ['client_secret_basic'] : AUTH_METHODS;
  const codes = new Map<string, OAuthAuthCode & { revoked?: boolean }>();
  const tokens = new Map<string, StoredToken>(); // by access token id (the JWT's jti)
  const pending = new Map<string, PendingAuthorization>();

  const clientRepository: OAuthClientRepository = {
    async getByIdentifier(clientId) {
      const client = clients.get(clientId);
      if (!client) throw OAuthException.invalidClient('unknown client');
      return client;
    },
    // Also consulted (with another grant type) for revocation and introspection, so only the
    // credentials are checked here; the token endpoint refuses other grants before this.
    async isClientValid(_grantType: GrantIdentifier, client, clientSecret) {
      if (!client.secret) return true;
      return typeof clientSecret === 'string' && sameSecret(clientSecret, client.secret);
    },
  };

  const tokenRepository: OAuthTokenRepository = {
    async issueToken(client, tokenScopes, user) {
      const token: OAuthToken = {
        accessToken: randomId(),
        accessTokenExpiresAt: new Date(),
        refreshToken: null,
        refreshTokenExpiresAt: null,
        client,
        user,
        scopes: tokenScopes,
      };
      return token;
    },
    async issueRefreshToken(token) {
      token.refreshToken = randomId();
      token.refreshTokenExpiresAt = refreshTokenTtl.getEndDate();
      return token;
    },
    // The very object is kept: the library adds the refresh token to it after persisting it.
    async persist(token) {
      tokens.set(token.accessToken, Object.assign(token, { revoked: false }));
    },
    async revoke(token) {
      const stored = tokens.get(token.accessToken);
      if (stored) stored.revoked = true;
    },
    async revokeDescendantsOf(authCodeId) {
      for (const t of tokens.values()) if (t.originatingAuthCodeId === authCodeId) t.revoked = true;
    },
    async isRefreshTokenRevoked(token) {
      const stored = tokens.get(token.accessToken);
      return !stored || stored.revoked || (stored.refreshTokenExpiresAt?.getTime() ?? 0) < Date.now();
    },
    async getByRefreshToken(refreshToken) {
      for (const t of tokens.values()) if (t.refreshToken === refreshToken) return t;
      throw OAuthException.invalidGrant('unknown refresh token');
    },
    async getByAccessToken(accessToken) {
      const t = tokens.get(accessToken);
      if (!t) throw OAuthException.invalidParameter('token', 'unknown access token');
      return t;
    },
  };

  const authCodeRepository: OAuthAuthCodeRepository = {
    async getByIdentifier(code) {
      const found = codes.get(code);
      if (!found) throw OAuthException.invalidGrant('unknown authorization code');
      return found;
    },
    issueAuthCode(client, user, codeScopes) {
      return { code: randomId(), client, user, scopes: codeScopes, expiresAt: new Date(), redirectUri: null };
    },
    async persist(code) {
      codes.set(code.code, code);
    },
    async isRevoked(code) {
      const found = codes.get(code);
      return !found || found.revoked === true;
    },
    async revoke(code) {
      const found = codes.get(code);
      if (found) found.revoked = true;
    },
  };

  const scopeRepository: OAuthScopeRepository = {
    async getAllByIdentifiers(names) {
      return scopes.filter((s) => names.includes(s.name));
    },
    async finalize(requested) {
      return requested.length ? requested : scopes.filter((s) => s.name === PEER_DEFAULT_SCOPE);
    },
  };

  const userRepository: OAuthUserRepository = {
    async getUserByCredentials(identifier, password) {
      const user = users.find((u) => (password === undefined ? u.id === identifier : u.username === identifier && u.password === password));
      return user ? ({ id: user.id, username: user.username } satisfies OAuthUser) : undefined;
    },
  };

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://${HOST}:${port}`;
  const issuer = baseUrl;

  const jwt = new JwtService(randomBytes(32).toString('hex'));
  const authorizationServer = new AuthorizationServer(clientRepository, tokenRepository, scopeRepository, jwt, {
    requiresPKCE: true,
    requiresS256: true,
    issuer,
  });
  authorizationServer.enableGrantType({ grant: 'authorization_code', authCodeRepository, userRepository }, accessTokenTtl);
  authorizationServer.enableGrantType('refresh_token', accessTokenTtl);

  const metadata = {
    issuer,
    authorization_endpoint: issuer + PEER_ROUTES.authorization,
    token_endpoint: issuer + PEER_ROUTES.token,
    registration_endpoint: issuer + PEER_ROUTES.registration,
    revocation_endpoint: issuer + PEER_ROUTES.revocation,
    introspection_endpoint: issuer + PEER_ROUTES.introspection,
    scopes_supported: [...PEER_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint_auth_methods_supported: authMethods,
  };

  const resourceMetadataUrl = `${baseUrl}/.well-known/oauth-protected-resource`;

  function oauthRequest(req: IncomingMessage, url: URL, body: Record<string, unknown> = {}): OAuthRequest {
    return new OAuthRequest({ query: Object.fromEntries(url.searchParams), body, headers: { ...req.headers } });
  }

  async function formBody(req: IncomingMessage): Promise<Record<string, string>> {
    return Object.fromEntries(new URLSearchParams((await readBody(req)).toString('utf8')));
  }

  /** The stored token behind an access token (a JWT this server signed), if it is valid. */
  async function validAccessToken(value: string): Promise<StoredToken | undefined> {
    let payload: Record<string, unknown>;
    try {
      payload = await jwt.verify(value);
    } catch {
      return undefined;
    }
    const stored = typeof payload.jti === 'string' ? tokens.get(payload.jti) : undefined;
    if (!stored || stored.revoked || stored.accessTokenExpiresAt.getTime() <= Date.now()) return undefined;
    return stored;
  }

  async function register(req: IncomingMessage, res: ServerResponse) {
    let input: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse((await readBody(req)).toString('utf8'));
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      input = parsed as Record<string, unknown>;
    } catch {
      sendJson(res, 400, { error: 'invalid_client_metadata', error_description: 'the body must be a JSON object' });
      return;
    }
    const redirectUris = input.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every(isLoopbackRedirect)) {
      emit('register_refused', { error: 'invalid_redirect_uri' });
      sendJson(res, 400, { error: 'invalid_redirect_uri', error_description: 'redirect_uris must be loopback addresses of the form http://127.0.0.1:<port>/<path>' });
      return;
    }
    // RFC 7591 §2: client_secret_basic when the client names no method.
    const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
    if (typeof method !== 'string' || !authMethods.includes(method)) {
      sendJson(res, 400, { error: 'invalid_client_metadata', error_description: `token_endpoint_auth_method must be one of ${authMethods.join(', ')}` });
      return;
    }
    const grantTypes = Array.isArray(input.grant_types) ? input.grant_types.filter((g): g is string => typeof g === 'string') : ['authorization_code'];
    if (!grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token')) {
      sendJson(res, 400, { error: 'invalid_client_metadata', error_description: 'grant_types may hold authorization_code and refresh_token only' });
      return;
    }
    const clientName = typeof input.client_name === 'string' ? input.client_name : 'unnamed client';
    const punctuated = opts.basicWithPunctuation === true;
    const secret = method === 'none' ? undefined : punctuated ? `s3cret-_.~${randomId(32)}` : randomId(32);
    const client: OAuthClient = {
      id: punctuated ? `pre-registered_client.${randomId(16)}~v1` : randomId(16),
      name: clientName,
      secret: secret ?? null,
      redirectUris: redirectUris.filter((u): u is string => typeof u === 'string'),
      allowedGrants: grantTypes.flatMap((g): GrantIdentifier[] => (g === 'authorization_code' || g === 'refresh_token' ? [g] : [])),
      scopes,
      tokenEndpointAuthMethod: method,
    };
    clients.set(client.id, client);
    emit('register', { client_id: client.id, token_endpoint_auth_method: method, redirect_uris: client.redirectUris, grant_types: client.allowedGrants });
    sendJson(res, 201, {
      client_id: client.id,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_name: clientName,
      redirect_uris: client.redirectUris,
      grant_types: client.allowedGrants,
      response_types: ['code'],
      token_endpoint_auth_method: method,
    });
  }

  async function authorize(req: IncomingMessage, res: ServerResponse, url: URL) {
    let request: AuthorizationRequest;
    try {
      request = await authorizationServer.validateAuthorizationRequest(oauthRequest(req, url));
    } catch (err) {
      const error = err instanceof OAuthException ? err.errorType : 'server_error';
      emit('authorize', { client_id: url.searchParams.get('client_id'), scope: url.searchParams.get('scope'), error });
      // RFC 6749 §4.1.2.1: once the client and its redirect URI are known good, the error goes
      // back to the client; otherwise the user is told here.
      const client = clients.get(url.searchParams.get('client_id') ?? '');
      const redirectUri = url.searchParams.get('redirect_uri');
      if (client && redirectUri && error !== 'invalid_client' && client.redirectUris.some((u) => sameIgnoringPort(u, redirectUri))) {
        const target = new URL(redirectUri);
        target.searchParams.set('error', error);
        if (err instanceof OAuthException && err.errorDescription) target.searchParams.set('error_description', err.errorDescription);
        const state = url.searchParams.get('state');
        if (state) target.searchParams.set('state', state);
        send(res, 302, '', { location: target.href });
        return;
      }
      send(
        res,
        400,
        page('Sign-in request refused', `<p id="error">${escapeHtml(error)}: ${escapeHtml(err instanceof OAuthException ? (err.errorDescription ?? err.message) : 'unexpected failure')}</p>`),
        { 'content-type': 'text/html; charset=utf-8' },
      );
      return;
    }
    const uid = randomId();
    pending.set(uid, { request, expiresAt: Date.now() + 10 * 60_000 });
    emit('authorize', { client_id: request.client.id, scope: url.searchParams.get('scope'), redirect_uri: request.redirectUri, code_challenge_method: request.codeChallengeMethod });
    send(res, 303, '', { location: `${PEER_ROUTES.signIn}?request=${uid}` });
  }

  function pendingOf(url: URL): [string, PendingAuthorization] | undefined {
    const uid = url.searchParams.get('request') ?? '';
    const found = pending.get(uid);
    if (!found || found.expiresAt < Date.now()) return undefined;
    return [uid, found];
  }

  const html = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

  function signInForm(uid: string, failed: boolean): string {
    return page(
      'Sign in',
      `${failed ? '<p id="sign-in-error">Wrong username or password.</p>' : ''}
<form method="post" action="${PEER_ROUTES.signIn}?request=${uid}">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button id="sign-in" type="submit">Sign in</button></form>`,
    );
  }

  async function signIn(req: IncomingMessage, res: ServerResponse, url: URL) {
    const found = pendingOf(url);
    if (!found) {
      send(res, 400, page('Sign-in request expired', '<p>Start again from the application.</p>'), html);
      return;
    }
    const [uid, auth] = found;
    if (req.method !== 'POST') {
      send(res, 200, signInForm(uid, false), html);
      return;
    }
    const fields = await formBody(req);
    const user = users.find((u) => u.username === fields.username && u.password === fields.password);
    if (!user) {
      send(res, 200, signInForm(uid, true), html);
      return;
    }
    auth.user = user;
    send(res, 303, '', { location: `${PEER_ROUTES.consent}?request=${uid}` });
  }

  async function consent(req: IncomingMessage, res: ServerResponse, url: URL) {
    const found = pendingOf(url);
    if (!found?.[1].user) {
      send(res, 400, page('Sign-in request expired', '<p>Start again from the application.</p>'), html);
      return;
    }
    const [uid, auth] = found;
    const { request, user } = auth;
    if (req.method !== 'POST') {
      const items = request.scopes.map((s) => `<li><code>${escapeHtml(s.name)}</code></li>`).join('');
      send(
        res,
        200,
        page(
          'Allow access?',
          `<p>${escapeHtml(request.client.name)} asks to act for ${escapeHtml(user!.name)}:</p><ul id="scopes">${items}</ul>
<form method="post" action="${PEER_ROUTES.consent}?request=${uid}">
<button id="approve" name="decision" value="approve" type="submit">Allow</button>
<button id="deny" name="decision" value="deny" type="submit">Deny</button></form>`,
        ),
        html,
      );
      return;
    }
    const { decision } = await formBody(req);
    pending.delete(uid);
    emit('consent', { client_id: request.client.id, decision, scope: request.scopes.map((s) => s.name).join(' ') });
    if (decision !== 'approve') {
      const target = new URL(request.redirectUri!);
      target.searchParams.set('error', 'access_denied');
      if (request.state) target.searchParams.set('state', request.state);
      send(res, 302, '', { location: target.href });
      return;
    }
    request.user = { id: user!.id, username: user!.username };
    request.isAuthorizationApproved = true;
    sendOAuthResponse(res, await authorizationServer.completeAuthorizationRequest(request));
  }

  async function token(req: IncomingMessage, res: ServerResponse, url: URL) {
    const body = await formBody(req);
    const grantType = body.grant_type;
    const record = (status: number, answer: Record<string, unknown>) =>
      emit('token', {
        grant_type: grantType,
        status,
        ok: status === 200,
        ...(status === 200 ? { scope: answer.scope, refresh_token_issued: typeof answer.refresh_token === 'string' } : { error: answer.error }),
      });
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      const answer = { error: 'unsupported_grant_type', error_description: 'only authorization_code and refresh_token are supported' };
      record(400, answer);
      sendJson(res, 400, answer);
      return;
    }
    try {
      const answer = await authorizationServer.respondToAccessTokenRequest(oauthRequest(req, url, body));
      record(answer.status, answer.body as Record<string, unknown>);
      sendOAuthResponse(res, answer);
    } catch (err) {
      record(err instanceof OAuthException ? err.status : 500, { error: err instanceof OAuthException ? err.errorType : 'server_error' });
      sendOAuthError(res, err);
    }
  }

  async function revoke(req: IncomingMessage, res: ServerResponse, url: URL) {
    const body = await formBody(req);
    const hint = body.token_type_hint;
    // RFC 7009 §2.1: a missing or wrong hint must not stop the search. The library only looks
    // for a refresh token when hinted, so the hint is set from the token's own shape.
    const decoded = body.token ? jwt.decode(body.token) : null;
    if (decoded && typeof decoded === 'object') {
      body.token_type_hint = 'refresh_token_id' in decoded ? 'refresh_token' : 'access_token';
    }
    try {
      const answer = await authorizationServer.revoke(oauthRequest(req, url, body));
      emit('revoke', { token_type_hint: hint, status: answer.status });
      sendOAuthResponse(res, answer);
    } catch (err) {
      emit('revoke', { token_type_hint: hint, status: err instanceof OAuthException ? err.status : 500 });
      sendOAuthError(res, err);
    }
  }

  async function introspect(req: IncomingMessage, res: ServerResponse, url: URL) {
    const body = await formBody(req);
    try {
      const answer = await authorizationServer.introspect(oauthRequest(req, url, body));
      emit('introspect', { status: answer.status, active: (answer.body as { active?: unknown }).active });
      sendOAuthResponse(res, answer);
    } catch (err) {
      sendOAuthError(res, err);
    }
  }

  // The protected API: bearer tokens required (RFC 6750), challenges point at RFC 9728 metadata.
  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const routes: Record<string, string> = { '/api/me': 'account:read', '/api/courses': 'courses:read' };
    const needed = routes[url.pathname];
    if (!needed) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method_not_allowed' }, { allow: 'GET, HEAD' });
      return true;
    }
    const m = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
    const stored = m ? await validAccessToken(m[1]!) : undefined;
    res.on('finish', () => emit('api', { path: url.pathname, status: res.statusCode, authenticated: stored !== undefined }));
    if (!stored) {
      const error = m ? ', error="invalid_token", error_description="the access token is invalid, expired or revoked"' : '';
      sendJson(res, 401, m ? { error: 'invalid_token' } : { error: 'unauthorized', error_description: 'an access token is required' }, {
        'www-authenticate': `Bearer realm="peer"${error}, resource_metadata="${resourceMetadataUrl}"`,
      });
      return true;
    }
    if (!stored.scopes.some((s) => s.name === needed)) {
      sendJson(
        res,
        403,
        { error: 'insufficient_scope', scope: needed },
        {
          'www-authenticate': `Bearer realm="peer", error="insufficient_scope", scope="${needed}", resource_metadata="${resourceMetadataUrl}"`,
        },
      );
      return true;
    }
    const user = users.find((u) => u.id === stored.user?.id);
    if (url.pathname === '/api/me') sendJson(res, 200, { id: user?.id, username: user?.username, name: user?.name });
    else
      sendJson(res, 200, {
        courses: [
          { id: 'k-1', title: 'Numerical methods' },
          { id: 'k-2', title: 'Logic' },
        ],
      });
    return true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', baseUrl);
    const path = url.pathname;
    const post = req.method === 'POST';
    if (path === '/.well-known/oauth-authorization-server' && req.method === 'GET') {
      emit('metadata', { path });
      sendJson(res, 200, metadata, { 'cache-control': 'max-age=60' });
    } else if (path === '/.well-known/oauth-protected-resource' && req.method === 'GET') {
      sendJson(res, 200, { resource: baseUrl, authorization_servers: [issuer], scopes_supported: [...PEER_SCOPES], bearer_methods_supported: ['header'] });
    } else if (path === PEER_ROUTES.registration && post) await register(req, res);
    else if (path === PEER_ROUTES.authorization && req.method === 'GET') await authorize(req, res, url);
    else if (path === PEER_ROUTES.signIn) await signIn(req, res, url);
    else if (path === PEER_ROUTES.consent) await consent(req, res, url);
    else if (path === PEER_ROUTES.token && post) await token(req, res, url);
    else if (path === PEER_ROUTES.revocation && post) await revoke(req, res, url);
    else if (path === PEER_ROUTES.introspection && post) await introspect(req, res, url);
    else if (!(await api(req, res, url))) sendJson(res, 404, { error: 'not_found' });
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (!quiet) console.error('peer: request failed:', err);
      if (!res.headersSent) sendOAuthError(res, err);
      else res.destroy();
    });
  });

  async function tokenState(value: string): Promise<'active' | 'revoked' | 'expired' | 'unknown'> {
    let payload: Record<string, unknown>;
    try {
      payload = await jwt.verify(value, { ignoreExpiration: true });
    } catch {
      return 'unknown';
    }
    const isRefresh = typeof payload.refresh_token_id === 'string';
    const stored = isRefresh ? [...tokens.values()].find((t) => t.refreshToken === payload.refresh_token_id) : typeof payload.jti === 'string' ? tokens.get(payload.jti) : undefined;
    if (!stored) return 'unknown';
    if (stored.revoked) return 'revoked';
    const expiry = isRefresh ? stored.refreshTokenExpiresAt : stored.accessTokenExpiresAt;
    return (expiry?.getTime() ?? 0) > Date.now() ? 'active' : 'expired';
  }

  let closed: Promise<void> | undefined;
  return {
    baseUrl,
    issuer,
    users,
    events,
    tokenState,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
