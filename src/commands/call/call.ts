import { readFile } from 'node:fs/promises';
import { cachedOpenApi, fetchOpenApi, listOperations } from '../../api/openapi.js';
import { insufficientScopeError, readChallenge } from '../../auth/challenge.js';
import { type Session, resolveSession } from '../../auth/session.js';
import { loadConfig } from '../../config/config.js';
import type { Deps } from '../../deps.js';
import { AuthError, CliError, UsageError, errorReason } from '../../errors.js';
import type { HttpResponse } from '../../http/client.js';
import { type GlobalOptions, baseUrlFor, profileName } from '../context.js';
import { assertSafeUrl } from '../../http/transport.js';
import { buildFields, parseHeader, readAll, toQuery } from './fields.js';
import { writeResponse } from './output.js';
import { printable, terminalSafeJson } from '../../util/printable.js';

export interface CallOptions extends GlobalOptions {
  args?: unknown[];
  method?: string;
  header?: string[];
  rawField?: string[];
  field?: string[];
  input?: string;
  include?: boolean;
  anonymous?: boolean;
  list?: boolean;
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The request URL: a path is joined to the base URL's path and stays on its origin (`//host`,
 * `/\\host` or `..` cannot leave it); an absolute URL is taken as it is.
 */
export function targetUrl(baseUrl: string, path: string): URL {
  if (ABSOLUTE_URL.test(path)) return new URL(path);
  const base = new URL(baseUrl);
  const q = path.search(/[?#]/);
  const [pathPart, rest] = q < 0 ? [path, ''] : [path.slice(0, q), path.slice(q)];
  const url = new URL(base.origin);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/${pathPart.replace(/^[/\\]+/, '')}`;
  url.search = new URL(`http://x/${rest}`).search; // a fragment is never sent
  if (url.origin !== base.origin) throw new UsageError(`The path ${path} leaves ${base.origin}.`);
  return url;
}

async function listRun(deps: Deps, opts: CallOptions, baseUrl: string): Promise<void> {
  const doc = (await fetchOpenApi(deps.http, deps.paths.cacheDir, baseUrl, deps.signal).catch(async (err) => {
    const cached = await cachedOpenApi(deps.paths.cacheDir, baseUrl);
    if (!cached) throw err;
    deps.io.err.write(`Could not fetch /openapi.json (${printable(errorReason(err))}); showing the cached copy.\n`);
    return cached;
  }))!;
  const ops = listOperations(doc);
  if (opts.json) {
    // JSON escapes every control character itself; the listing below is for a terminal.
    deps.io.out.write(`${terminalSafeJson(ops, 2)}\n`);
    return;
  }
  const scopesOf = (o: (typeof ops)[number]) => `${o.scopes.length ? o.scopes.map(printable).join(' ') : '-'}${o.anonymous && o.scopes.length ? ' (or anonymous)' : ''}`;
  const shown = ops.map((o) => ({ ...o, path: printable(o.path), summary: o.summary === undefined ? undefined : printable(String(o.summary)) }));
  const pathWidth = Math.max(...shown.map((o) => o.path.length), 4);
  const scopeWidth = Math.max(...shown.map((o) => scopesOf(o).length), 5);
  for (const op of shown) {
    const line = `${op.method.padEnd(7)} ${op.path.padEnd(pathWidth)}  ${scopesOf(op).padEnd(scopeWidth)}  ${op.summary ?? ''}`;
    deps.io.out.write(`${line.trimEnd()}\n`);
  }
}

export async function callRun(deps: Deps, opts: CallOptions): Promise<void> {
  const path = typeof opts.args?.[0] === 'string' ? (opts.args[0] as string) : undefined;

  let session: Session | undefined;
  if (!opts.anonymous) session = await resolveSession(deps, opts);
  const config = session ? undefined : await loadConfig(deps.paths);
  const baseUrl = session?.baseUrl ?? baseUrlFor(opts, deps.env, config?.profiles[profileName(opts, deps.env)]);

  if (opts.list) {
    if (!baseUrl) throw new UsageError('No base URL: pass --base-url or log in first.');
    return listRun(deps, opts, baseUrl);
  }
  if (!path) throw new UsageError('Missing the API path, e.g. `school call /api/courses`.');
  const absolute = ABSOLUTE_URL.test(path);
  if (!baseUrl && !absolute) throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.');
  const url = assertSafeUrl(targetUrl(baseUrl ?? path, path), 'URL');

  // The token goes only to the origin it was issued for.
  if (session && url.origin !== new URL(session.baseUrl).origin) {
    throw new UsageError(`Refusing to send the token for ${new URL(session.baseUrl).origin} to ${url.origin}.`, {
      code: 'foreign_origin',
      hint: 'Add --anonymous to send the request there without a token.',
    });
  }
  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const [name, value] = parseHeader(h);
    if (name.toLowerCase() === 'authorization' && session) throw new UsageError('Do not pass an Authorization header: the token is added for you (or use --anonymous).');
    headers[name.toLowerCase()] = value;
  }
  headers.accept ??= 'application/json, */*;q=0.5';

  const hasFields = Boolean(opts.rawField?.length || opts.field?.length);
  const method = (opts.method ?? (hasFields || opts.input !== undefined ? 'POST' : 'GET')).toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`Invalid method "${opts.method}".`);

  let body: Buffer | undefined;
  if (hasFields) {
    const fields = await buildFields(opts.rawField, opts.field, deps.io.in);
    // With a raw body (--input), fields go to the query string, as they do for GET.
    if (method === 'GET' || method === 'HEAD' || opts.input !== undefined) {
      for (const [k, v] of toQuery(fields)) url.searchParams.append(k, v);
    } else {
      body = Buffer.from(JSON.stringify(fields));
      headers['content-type'] ??= 'application/json';
    }
  }
  if (opts.input !== undefined) {
    try {
      body = opts.input === '-' ? await readAll(deps.io.in) : await readFile(opts.input);
    } catch (err) {
      throw new UsageError(`Cannot read ${opts.input}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
    }
  }

  if (!session && !opts.anonymous) deps.io.err.write('Not logged in: sending the request anonymously.\n');
  const send = (s: Session | undefined): Promise<HttpResponse> =>
    deps.http.request({
      method,
      url,
      headers: s ? { ...headers, authorization: `Bearer ${s.accessToken}` } : headers,
      body,
      signal: deps.signal,
    });

  let res = await send(session);
  let outcome = readChallenge(res.status, res.headers['www-authenticate']);
  // An invalid token gets one refresh and one retry; other 401s are not worth a rotating refresh.
  if (outcome.refresh && session?.refresh) {
    session = await session.refresh();
    res = await send(session);
    outcome = readChallenge(res.status, res.headers['www-authenticate']);
  }

  await writeResponse(deps.io, res, Boolean(opts.include));

  if (res.status >= 200 && res.status < 300) return;
  const summary = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} (${method} ${url.pathname})`;
  if (session && res.status === 401) {
    throw new AuthError(`${summary}: the server rejected the token${outcome.error ? ` (${outcome.error})` : ''}.`, {
      code: 'token_rejected',
      hint: session.source === 'env' ? 'Check the token in the environment.' : 'Run `school login`.',
    });
  }
  if (outcome.insufficientScope) throw insufficientScopeError(summary, session, outcome.insufficientScope);
  throw new CliError(summary, { code: 'http_error' });
}
