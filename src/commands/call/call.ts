import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { fetchOpenApi, listOperations } from '../../api/openapi.js';
import type { Deps } from '../../deps.js';
import { CliError, UsageError, errorReason } from '../../errors.js';
import type { HttpResponse } from '../../http/client.js';
import { assertSafeUrl } from '../../http/transport.js';
import { readChallengeHeader } from '../../oauth/challenge.js';
import { type GlobalOptions, baseUrlFor, profileName } from '../../options.js';
import { type Session, resolveSession } from '../../session/session.js';
import { insufficientScopeError, tokenRejected } from '../../session/step-up.js';
import { booleanFlag, collect, defineCommand, globalOptions, listFlag, stringFlag } from '../command.js';
import { buildFields, fileErrorReason, parseHeader, readAll, toQuery } from './fields.js';
import { writeResponse } from './output.js';

export interface CallOptions extends GlobalOptions {
  path?: string;
  method?: string;
  header?: string[];
  rawField?: string[];
  field?: string[];
  input?: string;
  include: boolean;
  anonymous: boolean;
  list: boolean;
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
  const doc = await fetchOpenApi(deps.http, baseUrl, deps.signal).then(
    async (fetched) => {
      await deps.state.saveApiDescription(baseUrl, fetched);
      return fetched;
    },
    async (err: unknown) => {
      const cached = await deps.state.cachedApiDescription(baseUrl);
      if (!cached) throw err;
      deps.io.err.write(`Could not fetch /openapi.json (${errorReason(err)}); showing the cached copy.\n`);
      return cached;
    },
  );
  const ops = listOperations(doc);
  if (opts.json) {
    deps.io.out.write(`${JSON.stringify(ops, null, 2)}\n`);
    return;
  }
  const scopesOf = (o: (typeof ops)[number]) => `${o.scopes.length ? o.scopes.join(' ') : '-'}${o.anonymous && o.scopes.length ? ' (or anonymous)' : ''}`;
  const pathWidth = Math.max(...ops.map((o) => o.path.length), 4);
  const scopeWidth = Math.max(...ops.map((o) => scopesOf(o).length), 5);
  for (const op of ops) {
    const line = `${op.method.padEnd(7)} ${op.path.padEnd(pathWidth)}  ${scopesOf(op).padEnd(scopeWidth)}  ${op.summary ?? ''}`;
    deps.io.out.write(`${line.trimEnd()}\n`);
  }
}

async function run(deps: Deps, opts: CallOptions): Promise<void> {
  const path = opts.path;

  let session: Session | undefined;
  if (!opts.anonymous) session = await resolveSession(deps, opts, { notify: (text) => deps.io.err.write(text) });
  const baseUrl = session?.baseUrl ?? baseUrlFor(opts, deps.env, session ? undefined : await deps.state.profile(profileName(opts, deps.env)));

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
      throw new UsageError(`Cannot read ${opts.input}: ${fileErrorReason(err)}.`);
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
  let outcome = await readChallengeHeader(res.status, res.headers['www-authenticate']);
  // An invalid token gets one refresh and one retry; other 401s are not worth a rotating refresh.
  if (outcome.refresh && session?.refresh) {
    session = await session.refresh();
    res = await send(session);
    outcome = await readChallengeHeader(res.status, res.headers['www-authenticate']);
  }

  await writeResponse(deps.io, res, Boolean(opts.include));

  if (res.status >= 200 && res.status < 300) return;
  const summary = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''} (${method} ${url.pathname})`;
  if (session && res.status === 401) {
    throw tokenRejected(`${summary}: the server rejected the token${outcome.error ? ` (${outcome.error})` : ''}.`, session);
  }
  if (outcome.insufficientScope) throw insufficientScopeError(summary, session, outcome.insufficientScope);
  throw new CliError(summary, { code: 'http_error' });
}

export const callCommand = defineCommand<CallOptions>({
  name: 'call',
  description: 'make an authenticated request to the school API',
  examples: `
Examples:
  school call /api/courses
  school call /api/courses -f title='Algebra I' -F credits=5
  school call /api/courses/42 -X DELETE -i
  school call --list`,
  configure(cmd: Command) {
    cmd
      .argument('[path]', 'API path relative to the base URL, e.g. /api/courses')
      .option('-X, --method <method>', 'HTTP method (default GET, or POST with fields)')
      .option('-H, --header <header>', "add a request header 'Name: value' (repeatable)", collect)
      .option('-f, --raw-field <key=value>', 'add a string field (repeatable)', collect)
      .option('-F, --field <key=value>', 'add a typed field: number, true/false, null, @file (repeatable)', collect)
      .option('--input <file>', 'send the file as the request body ("-" for stdin)')
      .option('-i, --include', 'print the status line and headers too')
      .option('--anonymous', 'send no token')
      .option('--list', 'list the API operations and the scope each needs (from /openapi.json)');
  },
  toOptions: (raw, args) => ({
    ...globalOptions(raw),
    path: args[0],
    method: stringFlag(raw, 'method'),
    header: listFlag(raw, 'header'),
    rawField: listFlag(raw, 'rawField'),
    field: listFlag(raw, 'field'),
    input: stringFlag(raw, 'input'),
    include: booleanFlag(raw, 'include'),
    anonymous: booleanFlag(raw, 'anonymous'),
    list: booleanFlag(raw, 'list'),
  }),
  run,
});
