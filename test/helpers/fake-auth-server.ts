import type { HttpClient, HttpRequest, HttpResponse } from '../../src/http/client.js';
import type { TokenSet } from '../../src/state/token-set.js';

export const API = 'https://api.school.example';
export const AS = 'https://login.school.example';

/** A token set of the fake server's client as a login stored it 100 s before `now`, valid for an hour. */
export function storedTokens(now: number, overrides: Partial<TokenSet> = {}): TokenSet {
  return {
    issuer: AS,
    clientId: 'cid-1',
    accessToken: 'at-stored-0123456789',
    refreshToken: 'rt-stored-0123456789',
    tokenType: 'bearer',
    obtainedAt: now - 100,
    expiresAt: now + 3500,
    scope: 'openid courses:read',
    ...overrides,
  };
}

export interface FakeAuthServer extends HttpClient {
  /** Every request, as "METHOD url". */
  asked: string[];
  /** Every token revoked, in order. */
  revoked: string[];
  /** The grants the token endpoint answered, in order. */
  grants: Array<{ grantType: string; params: URLSearchParams }>;
  /** What the refresh grant does next: issue tokens (rotating the refresh token or not), or refuse. */
  refresh: 'rotate' | 'keep' | 'invalid_grant';
  /** The `sub` the userinfo endpoint answers with. */
  userinfoSubject: string;
  /** The `sub` of an ID token sent with the code exchange; none is sent when undefined. */
  idTokenSubject?: string;
  /** How revocation goes: done; no endpoint advertised; access tokens not revocable; refused with a 503. */
  revocation: 'ok' | 'absent' | 'access_unsupported' | 'unavailable';
  /** The `nonce` that ID token carries (a real server echoes the authorization request's). */
  idTokenNonce?: string;
  /** The `scope` the token endpoint answers with; none when null (everything asked was granted). */
  grantedScope: string | null;
  /** Client IDs the server no longer knows: its authorization endpoint shows an error page for them, its token endpoint answers invalid_client. */
  forgotten: Set<string>;
  /** The metadata document; a test may remove endpoints before discovery. */
  metadata: Record<string, unknown>;
}

/** An ID token as the token endpoint sends it (its signature is not checked on that channel). */
function idToken(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.${Buffer.from('unsigned').toString('base64url')}`;
}

function json(status: number, body: unknown, url: string, headers: Record<string, string> = {}): HttpResponse {
  return { status, statusText: '', headers: { 'content-type': 'application/json', ...headers }, rawHeaders: [], body: Buffer.from(JSON.stringify(body)), url, httpVersion: '1.1' };
}

/** An authorization server and protected resource in memory, answering the way the sandbox does. */
export function fakeAuthServer(): FakeAuthServer {
  let counter = 0;
  const mint = (kind: string) => `${kind}-${++counter}-0123456789abcdef`;
  const metadata = {
    issuer: AS,
    authorization_endpoint: `${AS}/authorize`,
    token_endpoint: `${AS}/token`,
    registration_endpoint: `${AS}/register`,
    revocation_endpoint: `${AS}/revoke`,
    userinfo_endpoint: `${AS}/userinfo`,
    introspection_endpoint: `${AS}/introspect`,
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access', 'courses:read'],
    authorization_response_iss_parameter_supported: true,
  };
  const server: FakeAuthServer = {
    metadata,
    asked: [],
    revoked: [],
    grants: [],
    refresh: 'rotate',
    revocation: 'ok',
    userinfoSubject: 'u-ada',
    grantedScope: 'openid courses:read',
    forgotten: new Set(),
    async request(req: HttpRequest) {
      const url = String(req.url);
      const method = (req.method ?? 'GET').toUpperCase();
      server.asked.push(`${method} ${url}`);
      const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
      if (url.startsWith(`${AS}/authorize?`)) {
        // As a server does: an error page for a client it does not know (never a redirect), else its sign-in page.
        const clientId = new URL(url).searchParams.get('client_id') ?? '';
        if (server.forgotten.has(clientId)) return { ...json(400, {}, url), headers: { 'content-type': 'text/html' }, body: Buffer.from('<h1>invalid_client</h1>') };
        return { ...json(303, {}, url), headers: { location: `${AS}/sign-in` }, body: Buffer.alloc(0) };
      }
      switch (url) {
        case `${API}/.well-known/oauth-protected-resource`:
          return json(200, { resource: API, authorization_servers: [AS] }, url);
        case `${AS}/.well-known/oauth-authorization-server`: {
          const { revocation_endpoint: _revocation, ...withoutRevocation } = server.metadata;
          return json(200, server.revocation === 'absent' ? withoutRevocation : server.metadata, url);
        }
        case `${AS}/register`: {
          const asked: unknown = JSON.parse(typeof req.body === 'string' ? req.body : '{}');
          const confidential = Boolean(asked && typeof asked === 'object' && 'token_endpoint_auth_method' in asked && asked.token_endpoint_auth_method === 'client_secret_post');
          const client = { client_id: mint('client'), token_endpoint_auth_method: confidential ? 'client_secret_post' : 'none', redirect_uris: [] };
          return json(201, confidential ? { ...client, client_secret: mint('secret'), client_secret_expires_at: 0 } : client, url);
        }
        case `${AS}/revoke`:
          if (server.revocation === 'unavailable') return json(503, { error: 'temporarily_unavailable' }, url);
          if (server.revocation === 'access_unsupported' && form.get('token_type_hint') === 'access_token') return json(400, { error: 'unsupported_token_type' }, url);
          server.revoked.push(form.get('token') ?? '');
          return json(200, {}, url);
        case `${AS}/introspect`:
          return json(200, { active: true, sub: 'u-ada', username: 'ada', client_id: form.get('client_id') }, url);
        case `${AS}/userinfo`:
          return json(200, { sub: server.userinfoSubject, name: 'Ada Lovelace', email: 'ada@example.edu' }, url);
        case `${AS}/token`: {
          const grantType = form.get('grant_type') ?? '';
          server.grants.push({ grantType, params: form });
          if (server.forgotten.has(form.get('client_id') ?? '')) return json(401, { error: 'invalid_client', error_description: 'client is invalid' }, url);
          if (grantType === 'refresh_token' && server.refresh === 'invalid_grant') return json(400, { error: 'invalid_grant', error_description: 'grant revoked' }, url);
          const keep = grantType === 'refresh_token' && server.refresh === 'keep';
          const now = Math.floor(Date.now() / 1000);
          const id =
            grantType === 'authorization_code' && server.idTokenSubject
              ? { id_token: idToken({ iss: AS, sub: server.idTokenSubject, aud: form.get('client_id'), iat: now, exp: now + 300, nonce: server.idTokenNonce, name: 'Ada (from the ID token)' }) }
              : {};
          return json(
            200,
            {
              access_token: mint('at'),
              token_type: 'Bearer',
              expires_in: 3600,
              ...(server.grantedScope === null ? {} : { scope: server.grantedScope }),
              ...(keep ? {} : { refresh_token: mint('rt') }),
              ...id,
            },
            url,
          );
        }
        default:
          return json(404, { error: 'not_found' }, url);
      }
    },
  };
  return server;
}
