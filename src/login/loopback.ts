import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { CliError, InterruptedError } from '../errors.js';
import { portProblem } from './ports.js';
import { requireCommonJs } from '../util/require.js';
import { loginCommandText } from '../util/login-command.js';

/** Answered by every loopback listener with its process number; never a callback path (those are chosen by us). */
export const LISTENER_IDENTITY_PATH = '/.school-listener';

export interface LoopbackOptions {
  /** 0 for an ephemeral port. */
  port: number;
  path: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The command that starts this login again, for the time-out hint (it names the base URL: nothing may be saved yet). */
  retryCommand?: string;
  /** Whose rules explain a refused port (process.platform). */
  platform?: NodeJS.Platform;
  /**
   * Whether a callback is the one this login waits for (its `state` is the login's own). One that
   * is not is answered with a plain page and ignored: the listener keeps waiting for the real one
   * until its timeout, so any local process sending a forged callback cannot end the login.
   */
  isOwnCallback?: (url: URL) => boolean | Promise<boolean>;
}

export interface LoopbackListener {
  redirectUri: string;
  port: number;
  /** The full callback URL of the first request to the exact callback path. */
  callback: Promise<URL>;
  /** Shows the final page in the browser tab that made the callback, then shuts the listener down. */
  finish(result: { ok: boolean; title: string; message: string }): Promise<void>;
  close(): Promise<void>;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function resultPage(ok: boolean, title: string, message: string): string {
  const colour = ok ? '#1a7f37' : '#cf222e';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>school: ${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}
h1{color:${colour};font-size:1.5rem}</style></head>
<body><h1 id="result" data-ok="${ok}">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
}

/**
 * The callback URL of a request to the listener, or undefined when it is not a GET of exactly the
 * callback path (`/x/../callback`, `/callback/extra` and `//host/callback` are not). Whatever the
 * browser (or a local attacker) sends in the query is kept for the protocol checks, never thrown on.
 */
export function callbackUrl(port: number, method: string | undefined, rawUrl: string | undefined, path: string): URL | undefined {
  const raw = rawUrl ?? '/';
  // The raw path, before any normalisation: `/x/../callback` is not the callback path.
  if (method !== 'GET' || raw.split('?')[0] !== path) return undefined;
  try {
    const url = new URL(`http://127.0.0.1:${port}${raw}`);
    return url.pathname === path ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a callback carries the login's own `state`, for `isOwnCallback`: false too while no login
 * is known yet (no callback can come before the authorization URL exists).
 */
export function carriesState(url: URL, state: string | undefined): boolean {
  return state !== undefined && url.searchParams.getAll('state').length === 1 && url.searchParams.get('state') === state;
}

const FOREIGN_PAGE =
  'This sign-in response is not the one this login is waiting for (its state does not match), so it was ignored. The login is still waiting: finish signing in from the page it opened.';

/**
 * A one-shot HTTP listener on 127.0.0.1 only (never a wildcard address): it accepts exactly one
 * GET on its callback path that is its own (`isOwnCallback`), answers a foreign one with 400 and
 * anything else with 404, and gives up after a timeout.
 */
export async function startLoopback(options: LoopbackOptions): Promise<LoopbackListener> {
  const http: typeof import('node:http') = requireCommonJs('node:http');
  let pending: ServerResponse | undefined;
  let received = false;
  let resolveCallback!: (u: URL) => void;
  let rejectCallback!: (e: Error) => void;
  const callback = new Promise<URL>((resolve, reject) => {
    resolveCallback = resolve;
    rejectCallback = reject;
  });
  callback.catch(() => undefined); // the flow awaits it; an unobserved rejection must not crash

  const server: Server = http.createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'GET' && req.url === LISTENER_IDENTITY_PATH) {
      // Who listens here, so that `login --wait` stops a process by number only once it is ours.
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify({ pid: process.pid }));
      return;
    }
    const url = callbackUrl(port, req.method, req.url, options.path);
    if (!url) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end('Not found.\n');
      return;
    }
    const alreadyUsed = () => {
      res.writeHead(409, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
      res.end(resultPage(false, 'Already used', 'This sign-in response was already received. Return to the terminal.'));
    };
    if (received) return alreadyUsed();
    const own = options.isOwnCallback ? await Promise.resolve(options.isOwnCallback(url)).catch(() => false) : true;
    if (received) return alreadyUsed();
    if (!own) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
      res.end(`${FOREIGN_PAGE}\n`);
      return;
    }
    received = true;
    pending = res;
    resolveCallback(url);
  });
  server.keepAliveTimeout = 1000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new CliError(`Port ${options.port} on 127.0.0.1 is already in use.`, { code: 'port_in_use', hint: 'Choose another with --port, or omit --port for a free one.' }));
      } else if (err.code === 'EACCES') {
        reject(portDenied(options.port, options.platform ?? process.platform));
      } else reject(err);
    });
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;

  let closed = false;
  const close = () =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      closed = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      server.close(() => resolve());
      server.closeAllConnections();
    });

  const timer = setTimeout(() => {
    rejectCallback(
      new CliError(`No sign-in response arrived within ${Math.round(options.timeoutMs / 1000)} seconds.`, {
        code: 'timeout',
        hint: `Try again (with a longer --timeout to wait longer):\n${options.retryCommand ?? loginCommandText()}`,
      }),
    );
    void close();
  }, options.timeoutMs);
  timer.unref();

  const onAbort = () => {
    rejectCallback(new InterruptedError());
    void close();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  return {
    redirectUri: `http://127.0.0.1:${port}${options.path}`,
    port,
    callback,
    async finish(result) {
      clearTimeout(timer);
      if (pending && !pending.headersSent) {
        pending.writeHead(result.ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
        await new Promise<void>((r) => pending!.end(resultPage(result.ok, result.title, result.message), () => r()));
      }
      await close();
    },
    close,
  };
}

/**
 * Listening on a port was refused (EACCES). On Windows that is seldom privileges: Hyper-V, WSL and
 * Docker reserve ranges of ports, which change after an update or a restart.
 */
export function portDenied(port: number, platform: NodeJS.Platform): CliError {
  const hint =
    platform === 'win32'
      ? 'Windows has reserved it (`netsh int ipv4 show excludedportrange protocol=tcp` lists the reserved ranges); choose a port outside them with --port, or omit --port for a free one.'
      : 'Choose a port above 1023 with --port, or omit --port for a free one.';
  return new CliError(`Not allowed to listen on port ${port} of 127.0.0.1.`, { code: 'port_denied', hint });
}

/**
 * The listener for a login's redirect: on a fixed port when one is asked for; else on the port of
 * the cached registration's redirect URI when free (so no new registration is needed); else on
 * any free port.
 */
export async function listenForRedirect(
  p: Omit<LoopbackOptions, 'port'> & { port?: number; cachedRedirectUri?: string },
  start: (options: LoopbackOptions) => Promise<LoopbackListener> = startLoopback,
): Promise<LoopbackListener> {
  const on = (port: number) => start({ ...p, port });
  if (p.port !== undefined) return on(p.port);
  const cachedPort = p.cachedRedirectUri ? Number(new URL(p.cachedRedirectUri).port) : undefined;
  // A registration made on a port browsers refuse is not worth reusing.
  if (cachedPort && !portProblem(cachedPort)) {
    try {
      return await on(cachedPort);
    } catch (err) {
      // Taken since, or reserved since (Windows reserves port ranges after an update or a restart).
      if (!(err instanceof CliError && (err.code === 'port_in_use' || err.code === 'port_denied'))) throw err;
    }
  }
  return on(0);
}
