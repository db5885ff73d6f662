import type { Env } from '../types/env.js';
import type { IncomingMessage, RequestOptions } from 'node:http';
import type { Writable } from 'node:stream';
import { CliError } from '../errors.js';
import { printable, printableLines } from '../util/printable.js';
import { REDACTED, isSecretHeader, redactBody, redactText, redactUrl, registerSecretsIn, registerSecretsInForm } from '../util/redact.js';
import { proxyFor } from './proxy.js';
import { assertSafeUrl } from './transport.js';
import { requireCommonJs } from '../util/require.js';

export interface HttpRequest {
  method?: string;
  url: string | URL;
  /**
   * The path and query to send, exactly, when they are not the URL parser's (a path parameter of
   * dots sent as `%2E%2E`, see http/request-url.ts); `url` still gives the origin.
   */
  path?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The largest answer accepted, in bytes; reading stops as soon as it is passed. Default 256 MiB (`call` bodies). */
  maxBytes?: number;
}

/** Caps per kind of document: a hostile server must not make a protocol step use gigabytes. */
export const MAX_BYTES = {
  /** Metadata, registration, token, revocation and userinfo answers. */
  protocol: 1024 * 1024,
  /** The API description behind `call --list` and completions. */
  openapi: 16 * 1024 * 1024,
  /** What `call` prints. */
  body: 256 * 1024 * 1024,
} as const;

export interface HttpResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", " (set-cookie kept as an array). */
  headers: Record<string, string>;
  rawHeaders: string[];
  body: Buffer;
  url: string;
  httpVersion: string;
}

export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
}

export interface HttpClientOptions {
  env: Env;
  /** Where a redacted trace goes under --verbose. */
  trace?: Writable;
  userAgent?: string;
  defaultTimeoutMs?: number;
}

function traceHeaders(prefix: string, headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => {
      if (isSecretHeader(k)) {
        const scheme = /^([A-Za-z][\w-]*)\s/.exec(v)?.[1];
        return `${prefix} ${printable(k)}: ${scheme ? `${scheme} ` : ''}${REDACTED}`;
      }
      return `${prefix} ${printable(k)}: ${printable(redactText(v))}`;
    })
    .join('\n');
}

function traceBody(prefix: string, body: string, contentType?: string): string {
  const shown = redactBody(body, contentType);
  const limited = shown.length > 4000 ? `${shown.slice(0, 4000)}… (${shown.length} characters)` : shown;
  return printableLines(limited)
    .split('\n')
    .map((l) => `${prefix} ${l}`)
    .join('\n');
}

const SCAN_LIMIT = MAX_BYTES.protocol;

/**
 * Learns the secrets of a body before anything of it is shown: a token response's tokens are then
 * redacted wherever else they appear (a header, a non-standard field, a later error message).
 */
function learnSecrets(body: Buffer, contentType: string | undefined): void {
  if (!body.length || body.length > SCAN_LIMIT) return;
  const type = (contentType ?? '').toLowerCase();
  const text = body.toString('utf8');
  if (type.includes('application/x-www-form-urlencoded')) {
    registerSecretsInForm(text);
    return;
  }
  if (type.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      registerSecretsIn(JSON.parse(text));
    } catch {
      // not JSON: nothing named to learn
    }
  }
}

/**
 * The one HTTP client of the CLI, on node:http(s): cheap to load (no fetch machinery at start-up),
 * honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY, refuses cleartext except to loopback, and traces with
 * every secret redacted.
 */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const ua = options.userAgent ?? 'school-cli';
  return {
    async request(req) {
      // Callers check URLs the user typed; anything reaching this point came from a server.
      const url = assertSafeUrl(req.url, 'request URL', 'server');
      const path = req.path ?? `${url.pathname}${url.search}`;
      const href = `${url.origin}${path}`;
      const method = (req.method ?? 'GET').toUpperCase();
      const headers: Record<string, string> = { 'user-agent': ua, ...(req.headers ?? {}) };
      const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body ? Buffer.from(req.body) : undefined;
      if (body && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
        headers['content-length'] = String(body.length);
      }
      const trace = options.trace;
      const proxy = proxyFor(url, options.env);
      const requestType = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
      if (body) learnSecrets(body, requestType);
      if (trace) {
        trace.write(`* ${method} ${printable(redactUrl(href))}${proxy ? ` (via proxy ${printable(proxy.host)})` : ''}\n`);
        trace.write(`${traceHeaders('>', headers)}\n`);
        if (body) {
          trace.write(`${traceBody('>', body.toString('utf8'), requestType)}\n`);
        }
      }
      const started = Date.now();
      const maxBytes = req.maxBytes ?? MAX_BYTES.body;
      const res = await send(url, path, method, headers, body, proxy, req.signal, req.timeoutMs ?? options.defaultTimeoutMs ?? 30_000, maxBytes);
      // Protocol answers always (their secrets may show up in a later message); other bodies only
      // when they are about to be traced, so `call` does not parse what it merely prints.
      if (trace || maxBytes <= MAX_BYTES.protocol) learnSecrets(res.body, res.headers['content-type']);
      if (trace) {
        trace.write(`< HTTP/${res.httpVersion} ${res.status} ${printable(redactText(res.statusText))} (${Date.now() - started} ms)\n`);
        trace.write(`${traceHeaders('<', res.headers)}\n`);
        if (res.body.length) trace.write(`${traceBody('<', res.body.toString('utf8'), res.headers['content-type'])}\n`);
      }
      return res;
    },
  };
}

async function send(
  url: URL,
  path: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  proxy: URL | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number,
  maxBytes: number,
): Promise<HttpResponse> {
  const isHttps = url.protocol === 'https:';
  // require, not import(): import() would start the ES module loader for one built-in module.
  const lib: typeof import('node:https') | typeof import('node:http') = requireCommonJs(isHttps ? 'node:https' : 'node:http');
  const options: RequestOptions & { servername?: string } = {
    method,
    headers,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (isHttps ? 443 : 80),
    path,
    signal,
  };
  if (proxy) {
    if (proxy.protocol !== 'http:') {
      throw new CliError(`Unsupported proxy ${proxy.protocol}//${proxy.host}: HTTPS_PROXY / HTTP_PROXY must be an http:// proxy (https traffic is tunnelled through it).`, {
        code: 'proxy_unsupported',
      });
    }
    if (isHttps) {
      options.createConnection = undefined;
      (options as { agent?: unknown }).agent = await tunnelAgent(proxy, url, signal);
    } else {
      // A plain-http request through a proxy is sent to the proxy with the absolute URL.
      options.hostname = proxy.hostname;
      options.port = proxy.port || 80;
      options.path = `${url.origin}${path}`;
      const auth = proxyAuthorization(proxy);
      if (auth) headers['proxy-authorization'] = auth;
    }
  }
  return new Promise<HttpResponse>((resolve, reject) => {
    const request = lib.request(options, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      // A runaway or hostile answer must not take the machine's memory with it: refuse a declared
      // length over the cap at once, and stop reading as soon as the bytes received pass it.
      const tooLarge = () => new CliError(`The answer from ${url.origin} is larger than ${formatBytes(maxBytes)}; stopped reading it.`, { code: 'response_too_large' });
      const stop = () => {
        chunks.length = 0;
        const err = tooLarge();
        reject(err);
        request.destroy(err);
      };
      res.on('error', reject);
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        stop();
        return;
      }
      res.on('data', (c: Buffer) => {
        if (size + c.length > maxBytes) {
          stop();
          return;
        }
        size += c.length;
        chunks.push(c);
      });
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) {
          if (v === undefined) continue;
          flat[k] = Array.isArray(v) ? v.join(', ') : v;
        }
        const body = Buffer.concat(chunks, size);
        // The pieces are garbage once joined: a 13 MB answer is not held twice.
        chunks.length = 0;
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: flat,
          rawHeaders: res.rawHeaders,
          body,
          url: `${url.origin}${path}`,
          httpVersion: res.httpVersion,
        });
      });
    });
    request.setTimeout(timeoutMs, () => {
      request.destroy(new CliError(`No answer from ${url.origin} within ${Math.round(timeoutMs / 1000)} seconds.`, { code: 'network_error' }));
    });
    request.on('error', reject);
    if (body) request.write(body);
    request.end();
  });
}

/** "16 MiB", "512 KiB", "64 bytes": a size for a message. */
export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MiB` : n >= 1024 ? `${Math.round(n / 1024)} KiB` : `${n} bytes`;
}

function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const creds = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(creds).toString('base64')}`;
}

/** An agent whose every connection is a TLS session inside a CONNECT tunnel through the proxy. */
async function tunnelAgent(proxy: URL, target: URL, signal?: AbortSignal) {
  const https: typeof import('node:https') = requireCommonJs('node:https');
  const http: typeof import('node:http') = requireCommonJs('node:http');
  const tls: typeof import('node:tls') = requireCommonJs('node:tls');
  const net: typeof import('node:net') = requireCommonJs('node:net');
  const agent = new https.Agent({ keepAlive: false });
  const port = target.port || '443';
  const hostname = target.hostname.replace(/^\[|\]$/g, '');
  (agent as unknown as { createConnection: unknown }).createConnection = (_opts: unknown, callback: (err: Error | null, socket?: import('node:net').Socket) => void) => {
    const headers: Record<string, string> = { host: `${hostname}:${port}` };
    const auth = proxyAuthorization(proxy);
    if (auth) headers['proxy-authorization'] = auth;
    const connectReq = http.request({
      hostname: proxy.hostname,
      port: proxy.port || 80,
      method: 'CONNECT',
      path: `${hostname}:${port}`,
      headers,
      signal,
    });
    connectReq.on('connect', (res, socket: import('node:net').Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        callback(new CliError(`The proxy ${proxy.host} refused to connect to ${hostname}:${port} (HTTP ${res.statusCode}).`, { code: 'network_error' }));
        return;
      }
      // The certificate is checked against the target, never the proxy: `host` names it for IP literals too.
      const secure = tls.connect({ socket, host: hostname, servername: net.isIP(hostname) ? undefined : hostname });
      callback(null, secure);
    });
    connectReq.on('error', (err) => callback(err));
    connectReq.end();
    return undefined;
  };
  return agent;
}
