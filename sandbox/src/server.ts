import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';

import { createResourceServer, handleUserinfo } from './api.js';
import { handleInteraction } from './pages.js';
import { ALT_ROUTES, DEFAULT_ROUTES, RESOURCE_SERVER_CLIENT_ID, createProvider, endpointUrls } from './provider.js';
import { defaultUsers, type SandboxUser } from './users.js';
import { ResourceDpop } from './dpop.js';
import {
  ISSUER_PATH,
  type SandboxVariant,
  apiPath,
  defaultClientAuthMethod,
  descriptionOptions,
  dpopSigningAlgs,
  frontDoor,
  hasIssuerPath,
  replayBodyOf,
  resourceAcceptsDpop,
  resourceDpopNonces,
  resourceIdentifier,
} from './variants.js';

export interface SandboxOptions {
  port?: number; // API/resource origin port, default 0 (free port)
  splitOrigins?: boolean; // authorization server on a second origin
  altPaths?: boolean; // authorization server on non-default endpoint paths
  accessTokenTtl?: number; // seconds, default 3600
  refreshTokenTtl?: number; // seconds, default 14 days
  rotateRefreshTokens?: boolean; // default true
  revocation?: boolean; // advertise a revocation endpoint, default true
  quiet?: boolean;
  onEvent?: (event: SandboxEvent) => void; // called for every event as it is recorded
  variants?: SandboxVariant[]; // spec-legal choices of other servers (see variants.ts)
}

// Never contains a token, code, verifier or secret.
export interface SandboxEvent {
  at: number;
  type: string;
  [k: string]: unknown;
}

export interface Sandbox {
  baseUrl: string;
  issuer: string;
  events: SandboxEvent[];
  users: SandboxUser[];
  introspect(token: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

// Only one host name is ever used: 127.0.0.1. oidc-provider builds URLs from the Host
// header, and cookies, redirect matching and the CLI's loopback listener all assume it.
const HOST = '127.0.0.1';

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// A stand-in for an already consumed request, replaying a (rewritten) body to the provider.
function replayRequest(req: IncomingMessage, body: Buffer): IncomingMessage {
  const stream = new PassThrough();
  const headers = { ...req.headers, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  Object.assign(stream, {
    method: req.method,
    url: req.url,
    headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    socket: req.socket,
    connection: req.socket,
    complete: true,
  });
  stream.end(body);
  return stream as unknown as IncomingMessage;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const quiet = opts.quiet ?? false;
  const routes = opts.altPaths ? ALT_ROUTES : DEFAULT_ROUTES;
  const events: SandboxEvent[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => {
    const event: SandboxEvent = { at: Date.now(), type, ...fields };
    events.push(event);
    try {
      opts.onEvent?.(event);
    } catch (err) {
      if (!quiet) console.error('sandbox: event listener failed:', err);
    }
  };
  const users = defaultUsers();

  const apiServer = createServer();
  const asServer = opts.splitOrigins ? createServer() : apiServer;
  const apiPort = await listen(apiServer, opts.port ?? 0);
  const asPort = opts.splitOrigins ? await listen(asServer, 0) : apiPort;
  const variants = new Set(opts.variants ?? []);
  const baseUrl = `http://${HOST}:${apiPort}${apiPath(variants)}`;
  // The identifier tokens are issued for: the base URL, or the origin where only it has metadata.
  const resource = resourceIdentifier(variants, baseUrl);
  const issuer = `http://${HOST}:${asPort}${hasIssuerPath(variants) ? ISSUER_PATH : ''}`;
  const urls = endpointUrls(issuer, routes);
  const resourceServerSecret = randomBytes(24).toString('base64url');

  const provider = await createProvider({
    issuer,
    resource,
    routes,
    accessTokenTtl: opts.accessTokenTtl ?? 3600,
    refreshTokenTtl: opts.refreshTokenTtl ?? 14 * 24 * 3600,
    rotateRefreshTokens: opts.rotateRefreshTokens ?? true,
    advertiseRevocation: opts.revocation ?? true,
    users,
    resourceServerSecret,
    emit,
    quiet,
    variants,
  });
  const providerCallback = provider.callback();

  // The API and userinfo check DPoP in every variant: oidc-provider binds a token whenever its
  // DPoP feature is on and a proof was sent, and a DPoP-scheme request must be refused elsewhere.
  const dpop = new ResourceDpop(dpopSigningAlgs(variants), resourceDpopNonces(variants));
  // The resource's own metadata says it accepts DPoP (RFC 9728) wherever it does.
  const dpopMetadata = resourceAcceptsDpop(variants) ? { dpop_signing_alg_values_supported: dpop.algs, dpop_bound_access_tokens_required: variants.has('dpop-required') } : undefined;
  const resourceServer = createResourceServer({
    baseUrl,
    resource,
    issuer,
    provider,
    users,
    emit,
    oauthUrls: urls,
    dpop,
    dpopMetadata,
    description: descriptionOptions(variants),
  });

  // RFC 8707 resource values are compared as exact strings by oidc-provider; the API's
  // identifier is accepted with or without a trailing slash by canonicalising it first.
  const canonicalResource = (value: string) => (value === `${resource}/` ? resource : value);
  const canonicaliseParams = (params: URLSearchParams): boolean => {
    const values = params.getAll('resource');
    if (!values.some((v) => canonicalResource(v) !== v)) return false;
    params.delete('resource');
    for (const v of values) params.append('resource', canonicalResource(v));
    return true;
  };

  async function authorizationServer(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (url.pathname === routes.userinfo) {
      await handleUserinfo(req, res, { issuer, resource, provider, users, emit, dpop, url: urls.userinfo_endpoint });
      return;
    }
    if (await handleInteraction(req, res, url.pathname, { provider, users, emit })) return;

    if (url.pathname === routes.authorization && canonicaliseParams(url.searchParams)) {
      req.url = `${url.pathname}?${url.searchParams}`;
    }
    const replayBody = replayBodyOf(req);
    if (replayBody) {
      providerCallback(replayRequest(req, replayBody), res);
      return;
    }
    if (
      url.pathname === routes.token &&
      req.method === 'POST' &&
      String(req.headers['content-type'] ?? '')
        .toLowerCase()
        .startsWith('application/x-www-form-urlencoded')
    ) {
      const raw = await readAll(req);
      const form = new URLSearchParams(raw.toString('utf8'));
      const body = canonicaliseParams(form) ? Buffer.from(form.toString()) : raw;
      providerCallback(replayRequest(req, body), res);
      return;
    }
    providerCallback(req, res);
  }

  // Access tokens stay recognisable as such after they are revoked with their grant (as a
  // self-contained token would), so a refusal to revoke them does not depend on the order.
  const issuedAccessTokens = new Set<string>();
  if (variants.has('revocation-refuses-access-tokens')) {
    provider.on('access_token.saved', (token: { jti: string }) => issuedAccessTokens.add(token.jti));
  }
  // Without variants every request goes straight through.
  const throughFrontDoor = (req: IncomingMessage, res: ServerResponse, url: URL): Promise<URL | undefined> =>
    variants.size === 0
      ? Promise.resolve(url)
      : frontDoor(req, res, url, {
          variants,
          issuer,
          resource,
          baseUrl,
          routes,
          isAccessToken: (value) => issuedAccessTokens.has(value),
          emit,
        });

  function notFound(res: ServerResponse) {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify({ error: 'not_found', error_description: 'no such endpoint' }));
  }

  function track(req: IncomingMessage, res: ServerResponse, origin: 'api' | 'authorization_server' | 'combined', path: string) {
    const method = req.method;
    res.on('finish', () => emit('request', { method, path, status: res.statusCode, origin }));
  }

  function onError(res: ServerResponse, err: unknown) {
    if (!quiet) console.error('sandbox: request failed:', err);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ error: 'server_error', error_description: 'the sandbox failed to handle this request' }));
    } else {
      res.destroy();
    }
  }

  if (opts.splitOrigins) {
    apiServer.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', baseUrl);
      track(req, res, 'api', url.pathname);
      throughFrontDoor(req, res, url)
        .then(async (routed) => {
          if (routed && !(await resourceServer(req, res, routed))) notFound(res);
        })
        .catch((err) => onError(res, err));
    });
    asServer.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', issuer);
      track(req, res, 'authorization_server', url.pathname);
      throughFrontDoor(req, res, url)
        .then((routed) => (routed ? authorizationServer(req, res, routed) : undefined))
        .catch((err) => onError(res, err));
    });
  } else {
    apiServer.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', baseUrl);
      track(req, res, 'combined', url.pathname);
      throughFrontDoor(req, res, url)
        .then(async (routed) => (!routed || (await resourceServer(req, res, routed)) ? undefined : authorizationServer(req, res, routed)))
        .catch((err) => onError(res, err));
    });
  }

  let closed: Promise<void> | undefined;
  return {
    baseUrl,
    issuer,
    events,
    users,
    async introspect(token: string) {
      // The resource server authenticates the way its variant allows.
      const basic = defaultClientAuthMethod(variants) === 'client_secret_basic';
      const credentials = `${encodeURIComponent(RESOURCE_SERVER_CLIENT_ID)}:${encodeURIComponent(resourceServerSecret)}`;
      const response = await fetch(urls.introspection_endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          ...(basic ? { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } : {}),
        },
        body: new URLSearchParams(basic ? { token } : { token, client_id: RESOURCE_SERVER_CLIENT_ID, client_secret: resourceServerSecret }),
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`introspection failed: HTTP ${response.status} ${JSON.stringify(body)}`);
      return body;
    },
    close() {
      closed ??= Promise.all([closeServer(apiServer), opts.splitOrigins ? closeServer(asServer) : Promise.resolve()]).then(() => undefined);
      return closed;
    },
  };
}
