// Shared pieces of the sandbox's own tests: an oauth4webapi client set-up, a loopback
// callback listener, and a fast cookie-aware HTTP walk through the sign-in and consent
// pages (the real-browser walk is src/browser-driver).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import * as oauth from 'oauth4webapi';

import type { Sandbox } from '../src/index.js';

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(issuer: string): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  // algorithm 'oauth2' reads RFC 8414 metadata, the document the interface calls authoritative.
  const response = await oauth.discoveryRequest(url, { algorithm: 'oauth2', ...insecure });
  return oauth.processDiscoveryResponse(url, response);
}

export interface RegisteredClient {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  secret?: string;
}

export async function register(as: oauth.AuthorizationServer, metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>> & Record<string, unknown> = {}): Promise<RegisteredClient> {
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'sandbox test client',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1:8765/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    },
    insecure,
  );
  const client = await oauth.processDynamicClientRegistrationResponse(response);
  const secret = typeof client.client_secret === 'string' ? client.client_secret : undefined;
  return { client, auth: secret ? oauth.ClientSecretPost(secret) : oauth.None(), secret };
}

export interface CallbackListener {
  port: number;
  redirectUri: string;
  next(): Promise<URL>;
  close(): Promise<void>;
}

// A tiny stand-in for the CLI's loopback listener. Only the exact callback path counts:
// browsers also ask for /favicon.ico.
export async function callbackListener(path = '/callback'): Promise<CallbackListener> {
  const waiting: ((u: URL) => void)[] = [];
  const received: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>Done</title><p>Authorization received. You can close this window.</p>');
    const full = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const w = waiting.shift();
    if (w) w(full);
    else received.push(full);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    redirectUri: `http://127.0.0.1:${port}${path}`,
    next: () => {
      const ready = received.shift();
      return ready ? Promise.resolve(ready) : new Promise<URL>((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  verifier: string;
  redirectUri: string;
}

export async function authorizationUrl(as: oauth.AuthorizationServer, client: oauth.Client, redirectUri: string, scope: string, extra: Record<string, string> = {}): Promise<AuthorizationRequest> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  }).toString();
  return { url, state, verifier, redirectUri };
}

// Walks the sign-in and consent pages with plain HTTP and a minimal cookie jar, following
// redirects until one leaves the authorization server; returns that redirect target.
export async function loginOverHttp(start: URL, { user = 'ada', password = 'lovelace', consent = 'approve' }: { user?: string; password?: string; consent?: 'approve' | 'deny' } = {}): Promise<URL> {
  const jar = new Map<string, { value: string; path: string }>();
  const origin = start.origin;
  const cookieHeader = (url: URL) =>
    [...jar.entries()]
      .filter(([, c]) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  const store = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attrs.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const expired = attrs.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now());
      if (expired || value === '') jar.delete(name);
      else jar.set(name, { value, path });
    }
  };
  const request = async (url: URL, init: RequestInit = {}) => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader(url) } });
    store(res);
    return res;
  };

  let res = await request(start);
  for (let hops = 0; hops < 20; hops++) {
    const location = res.headers.get('location');
    if (location) {
      const next = new URL(location, res.url || start);
      await res.arrayBuffer();
      if (next.origin !== origin) return next;
      res = await request(next);
      continue;
    }
    const html = await res.text();
    if (res.status >= 400)
      throw new Error(
        `authorization server answered ${res.status}: ${html
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .slice(0, 300)}`,
      );
    const page = new URL(res.url);
    if (html.includes('name="username"')) {
      if (html.includes('id="sign-in-error"')) throw new Error('sign-in failed');
      const action = /action="([^"]+\/login)"/.exec(html)![1]!;
      res = await request(new URL(action, page), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: user, password }).toString(),
      });
      continue;
    }
    if (html.includes('id="approve"')) {
      const action = new RegExp(`action="([^"]+/${consent === 'deny' ? 'abort' : 'confirm'})"`).exec(html)![1]!;
      res = await request(new URL(action, page), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      continue;
    }
    throw new Error(`unexpected page at ${page.pathname}: ${html.slice(0, 200)}`);
  }
  throw new Error('too many redirects');
}

export interface Tokens extends oauth.TokenEndpointResponse {}

// Register-free helper: runs the whole code flow over HTTP for an already registered client.
export async function obtainTokens(
  as: oauth.AuthorizationServer,
  reg: RegisteredClient,
  scope: string,
  opts: { redirectUri?: string; resource?: string; authorizeResource?: string; user?: string; password?: string } = {},
): Promise<Tokens> {
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1:8765/callback';
  const extra: Record<string, string> = opts.authorizeResource ? { resource: opts.authorizeResource } : {};
  const req = await authorizationUrl(as, reg.client, redirectUri, scope, extra);
  const callback = await loginOverHttp(req.url, { user: opts.user, password: opts.password });
  const params = oauth.validateAuthResponse(as, reg.client, callback, req.state);
  const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, redirectUri, req.verifier, {
    ...insecure,
    ...(opts.resource ? { additionalParameters: { resource: opts.resource } } : {}),
  });
  return oauth.processAuthorizationCodeResponse(as, reg.client, response);
}

export function eventsOf(sb: Sandbox, type: string) {
  return sb.events.filter((e) => e.type === type);
}
