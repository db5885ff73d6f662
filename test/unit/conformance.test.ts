import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callCommand } from '../../src/commands/call/call.js';
import { logoutCommand } from '../../src/commands/logout/logout.js';
import { type LoginHooks, type LoginRequest, completeLogin, prepareLogin } from '../../src/login/transaction.js';
import { fakeDeps } from '../helpers/fake-deps.js';

/**
 * The server shapes an independent conformance suite of OAuth clients uses: an API under a path
 * (`/mcp`) on one port, its authorization server on another origin with a path issuer
 * (`/tenant1`), over real HTTP on 127.0.0.1. Every request is recorded with its Authorization
 * header, so that where a credential went can be checked.
 */
interface Seen {
  port: number;
  method: string;
  path: string;
  authorization?: string;
  body: string;
}

interface Shape {
  /** The one token endpoint auth method the authorization server supports, and registers. */
  authMethod: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** `scopes_supported` of the protected resource metadata; of the authorization server, none. */
  resourceScopes?: string[];
  /** `code_challenge_methods_supported` of the authorization server metadata. */
  pkceMethods?: string[];
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

async function listen(handler: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<number> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks).toString(), res));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as AddressInfo).port;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const SECRET = 'registered-secret-0123456789';

/** The id and secret of a Basic header, each form-decoded as RFC 6749 §2.3.1 has them encoded. */
function basicCredentials(header: string | undefined): string | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString().split(':');
  const decode = (v: string) => decodeURIComponent(v.replace(/\+/g, ' '));
  return `${decode(id)}:${decode(secret)}`;
}

async function conformanceServers(shape: Shape) {
  const seen: Seen[] = [];
  let minted = 0;
  const valid = new Set<string>();
  const record = (port: number, req: IncomingMessage, body: string) =>
    seen.push({ port, method: req.method ?? 'GET', path: req.url ?? '/', ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}), body });

  const asPort = await listen((req, body, res) => {
    record(asPort, req, body);
    const url = new URL(req.url ?? '/', issuer);
    const form = new URLSearchParams(body);
    const clientAuthenticated = () => {
      if (shape.authMethod === 'client_secret_basic') return basicCredentials(req.headers.authorization) === `client-1:${SECRET}` && !form.has('client_secret');
      if (shape.authMethod === 'client_secret_post') return form.get('client_secret') === SECRET && !req.headers.authorization;
      return !form.has('client_secret') && !req.headers.authorization;
    };
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /.well-known/oauth-authorization-server/tenant1':
        return send(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          registration_endpoint: `${issuer}/register`,
          revocation_endpoint: `${issuer}/revoke`,
          token_endpoint_auth_methods_supported: [shape.authMethod],
          response_types_supported: ['code'],
          ...(shape.pkceMethods ? { code_challenge_methods_supported: shape.pkceMethods } : {}),
        });
      case 'POST /tenant1/register':
        // Asked as public or not, the server registers the one method it supports.
        return send(res, 201, {
          client_id: 'client-1',
          token_endpoint_auth_method: shape.authMethod,
          redirect_uris: JSON.parse(body).redirect_uris,
          ...(shape.authMethod === 'none' ? {} : { client_secret: SECRET }),
        });
      case 'POST /tenant1/token': {
        if (!clientAuthenticated()) return send(res, 401, { error: 'invalid_client' });
        const accessToken = `at-${++minted}-0123456789`;
        valid.add(accessToken);
        return send(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, refresh_token: `rt-${minted}-0123456789` });
      }
      case 'POST /tenant1/revoke':
        if (!clientAuthenticated()) return send(res, 401, { error: 'invalid_client' });
        valid.delete(form.get('token') ?? '');
        return send(res, 200, {});
      default:
        return send(res, 404, { error: 'not_found' });
    }
  });
  const issuer = `http://127.0.0.1:${asPort}/tenant1`;

  const rsPort = await listen((req, body, res) => {
    record(rsPort, req, body);
    const challenge = { 'www-authenticate': `Bearer resource_metadata="${base.replace('/mcp', '')}/.well-known/oauth-protected-resource/mcp"` };
    switch (req.url) {
      case '/.well-known/oauth-protected-resource/mcp':
        return send(res, 200, { resource: base, authorization_servers: [issuer], ...(shape.resourceScopes ? { scopes_supported: shape.resourceScopes } : {}) });
      case '/mcp/api/courses': {
        const token = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
        // The first access token is refused as expired: the call refreshes and tries again.
        if (!valid.has(token) || token.startsWith('at-1-')) return send(res, 401, { error: 'invalid_token' }, challenge);
        return send(res, 200, [{ id: 'c1', title: 'Algebra' }]);
      }
      default:
        return send(res, 404, { error: 'not_found' }, req.url?.startsWith('/mcp') ? challenge : {});
    }
  });
  const base = `http://127.0.0.1:${rsPort}/mcp`;
  return { seen, base, issuer, asPort, rsPort };
}

const hooks: LoginHooks = { notify: () => {}, listen: async () => ({ redirectUri: 'http://127.0.0.1:5555/callback' }) };

async function journey(shape: Shape) {
  const s = await conformanceServers(shape);
  const deps = fakeDeps();
  const req: LoginRequest = { profile: 'default', baseUrl: s.base, timeoutSeconds: 300, confidential: false, insecureStorage: false };
  const pending = await prepareLogin(deps, req, hooks);
  const redirect = new URL(`${pending.redirectUri}?${new URLSearchParams({ state: pending.state, iss: s.issuer, code: 'code-0123456789' })}`);
  await completeLogin(deps, pending, redirect);
  await callCommand.execute(() => deps, {}, ['/api/courses']);
  const called = deps.io.stdout();
  await logoutCommand.execute(() => deps, {}, []);
  return { ...s, pending, called };
}

describe('a conformance-suite server: API under /mcp, authorization server on another origin with a path issuer', () => {
  it.each(['client_secret_basic', 'client_secret_post', 'none'] as const)('logs in, calls, refreshes and logs out with %s, the one method the server supports', async (authMethod) => {
    const j = await journey({ authMethod });
    expect(j.pending.authMethod).toBe(authMethod);
    expect(JSON.parse(j.called)).toEqual([{ id: 'c1', title: 'Algebra' }]);
    const at = (path: string) => j.seen.filter((r) => r.port === j.asPort && r.path.startsWith(path));
    const grants = at('/tenant1/token').map((r) => new URLSearchParams(r.body).get('grant_type'));
    expect(grants).toEqual(['authorization_code', 'refresh_token']);
    expect(at('/tenant1/revoke').length).toBeGreaterThan(0);
    // The access tokens went to the API alone; the client's Basic credentials to the token and revocation endpoints alone.
    for (const r of j.seen.filter((r) => r.authorization?.startsWith('Bearer '))) expect(r).toMatchObject({ port: j.rsPort, path: '/mcp/api/courses' });
    for (const r of j.seen.filter((r) => r.authorization?.startsWith('Basic '))) expect(['/tenant1/token', '/tenant1/revoke']).toContain(r.path);
    if (authMethod === 'client_secret_basic') expect(at('/tenant1/token').every((r) => r.authorization?.startsWith('Basic '))).toBe(true);
    // Path-scoped metadata found: neither root address is asked.
    expect(j.seen.map((r) => `${r.port} ${r.path}`)).not.toContain(`${j.rsPort} /.well-known/oauth-protected-resource`);
    expect(j.seen.filter((r) => r.port === j.asPort && r.path.startsWith('/.well-known/')).map((r) => r.path)).toEqual(['/.well-known/oauth-authorization-server/tenant1']);
  });

  it('asks for the read scopes of the resource metadata, and for no scope at all where nothing lists any', async () => {
    const listed = await journey({ authMethod: 'none', resourceScopes: ['courses:read', 'courses:write'] });
    expect(new URL(listed.pending.authorizationUrl).searchParams.get('scope')).toBe('courses:read');
    const unlisted = await journey({ authMethod: 'none' });
    expect(new URL(unlisted.pending.authorizationUrl).searchParams.has('scope')).toBe(false);
  });

  it.each([[[]], [['plain']]])('refuses code_challenge_methods_supported %j before any browser opens, exit 1', async (pkceMethods) => {
    const s = await conformanceServers({ authMethod: 'none', pkceMethods });
    const deps = fakeDeps();
    await expect(prepareLogin(deps, { profile: 'default', baseUrl: s.base, timeoutSeconds: 300, confidential: false, insecureStorage: false }, hooks)).rejects.toMatchObject({
      exitCode: 1,
      message: `The authorization server ${s.issuer} does not offer PKCE with S256; refusing to log in.`,
    });
    expect(s.seen.some((r) => r.path.includes('/register') || r.path.includes('/authorize'))).toBe(false);
    expect(deps.opened).toEqual([]);
  });
});
