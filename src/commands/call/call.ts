// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { promises as fs } from 'node:fs';
import type { Command } from 'commander';
import { type OpenApiDoc, listOperations } from '../../api/openapi.js';
import type { Deps } from '../../deps.js';
import { CliError, UsageError } from '../../errors.js';
import { ABSOLUTE_URL } from '../../http/request-url.js';
import { ApiClient } from '../../session/api-client.js';
import { loadApiDescription } from '../../session/api-description.js';
import type { GlobalOptions } from '../../options.js';
import { type Session, resolveSession } from '../../session/session.js';
import { booleanFlag, collect, commandTarget, defineCommand, globalOptions, listFlag, stringFlag } from '../command.js';
import { buildFields, fileErrorReason, parseHeader, readAll, toQuery } from './fields.js';
import { parseTimeout } from './deadline.js';
import type { JqFilter } from './jq.js';
import { terminalJson } from './output.js';
import { performCall } from './request.js';
import { parseRetryCount, retriesAllowed } from './retry.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { parsesAsJson } from '../../util/json.js';
import { bodyWithoutMark } from '../../util/text-file.js';

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
  // For scripts: pagination, jq, retries, a deadline.
  paginate: boolean;
  slurp: boolean;
  jq?: string;
  retry?: string;
  timeout?: string;
}

/** The script-facing flags, checked before anything is sent: a mistake costs no request. */
function scriptOptions(opts: CallOptions) {
  if (opts.slurp && !opts.paginate) throw new UsageError('--slurp needs --paginate: it gathers every page into one array.');
  if (opts.jq !== undefined && !opts.jq.trim()) throw new UsageError('--jq needs an expression, e.g. --jq .courses[].title');
  return { timeoutSeconds: parseTimeout(opts.timeout), retries: parseRetryCount(opts.retry) };
}

async function listRun(deps: Deps, opts: CallOptions, baseUrl: string): Promise<void> {
  // The description cache `school api` uses: fresh, revalidated, or the stale copy with a note.
  const loaded = await loadApiDescription(deps, baseUrl);
  if (loaded.note) deps.io.err.write(`${loaded.note}\n`);
  const doc = await loaded.document();
  if (doc === undefined) throw new CliError(`The cached API description of ${printable(baseUrl)} is gone: run 'school api --refresh'.`, { code: 'openapi_unavailable' });
  const ops = listOperations(doc as OpenApiDoc);
  if (opts.jq !== undefined) {
    // --jq implies the JSON form.
    const filter = await (await import('./jq.js')).compileJq(opts.jq, deps.io.outIsTTY ? await terminalJson(deps.io) : undefined);
    deps.io.out.write(filter.apply(JSON.stringify(ops), 'The list'));
    return;
  }
  if (opts.json) {
    // JSON escapes every control character itself; the listing below is for a terminal.
    deps.io.out.write(`${terminalSafeJson(ops, 2)}\n`);
    return;
  }
  const scopesOf = (o: (typeof ops)[number]) => `${o.scopes.length ? o.scopes.map(printable).join(' ') : '-'}${o.anonymous && o.scopes.length ? ' (or anonymous)' : ''}`;
  const shown = ops.map((o) => ({ ...o, path: printable(o.path), summary: o.summary === undefined ? undefined : printable(o.summary) }));
  const pathWidth = Math.max(...shown.map((o) => o.path.length), 4);
  const scopeWidth = Math.max(...shown.map((o) => scopesOf(o).length), 5);
  for (const op of shown) {
    const line = `${op.method.padEnd(7)} ${op.path.padEnd(pathWidth)}  ${scopesOf(op).padEnd(scopeWidth)}  ${op.summary ?? ''}${op.paginated ? ' (paginated)' : ''}`;
    deps.io.out.write(`${line.trimEnd()}\n`);
  }
}

async function run(deps: Deps, opts: CallOptions): Promise<void> {
  const path = opts.path;

  const target = await commandTarget(deps, opts, { anonymous: opts.anonymous });
  const session: Session | undefined = await resolveSession(deps, target, { notify: (text) => deps.io.err.write(text) });
  const baseUrl = session?.baseUrl ?? target.baseUrl;

  if (opts.list) {
    if (!baseUrl) throw new UsageError('No base URL: pass --base-url or log in first.');
    return listRun(deps, opts, baseUrl);
  }
  if (!path) throw new UsageError('Missing the API path, e.g. `school call /api/courses`.');
  const script = scriptOptions(opts);
  const absolute = ABSOLUTE_URL.test(path);
  if (!baseUrl && !absolute) throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.');
  // The token goes only to the origin it was issued for; without one, an absolute URL may go anywhere.
  // One refresh per run: a server that refuses every token must not spend a refresh per page.
  const client = new ApiClient(deps, {
    baseUrl: baseUrl ?? path,
    session,
    anonymousAnyOrigin: true,
    refreshLimit: 1,
    foreignOriginHint: 'Add --anonymous to send the request there without a token.',
  });
  const url = client.url(path);
  const headers: Record<string, string> = {};
  for (const h of opts.header ?? []) {
    const [name, value] = parseHeader(h);
    headers[name.toLowerCase()] = value;
  }
  client.checkHeaders(headers, 'the token is added for you (or use --anonymous)');
  headers.accept ??= 'application/json, */*;q=0.5';

  const hasFields = Boolean(opts.rawField?.length || opts.field?.length);
  const method = (opts.method ?? (hasFields || opts.input !== undefined ? 'POST' : 'GET')).toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new UsageError(`Invalid method "${opts.method}".`);
  if (opts.paginate && method !== 'GET') throw new UsageError(`--paginate follows pages of a GET listing, not ${method}.`);

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
      body = bodyWithoutMark(opts.input === '-' ? await readAll(deps.io.in) : await fs.readFile(opts.input));
    } catch (err) {
      throw new UsageError(`Cannot read ${opts.input}: ${fileErrorReason(err)}.`);
    }
    // A JSON file is sent as JSON unless the user said otherwise: servers answer 415 to a bare body.
    if (headers['content-type'] === undefined && parsesAsJson(body.toString('utf8'))) headers['content-type'] = 'application/json';
  }

  let jq: JqFilter | undefined;
  if (opts.jq !== undefined) jq = await (await import('./jq.js')).compileJq(opts.jq, deps.io.outIsTTY ? await terminalJson(deps.io) : undefined);

  if (!session && !opts.anonymous) deps.io.err.write('Not logged in: sending the request anonymously.\n');
  await performCall(
    deps,
    {
      method,
      url,
      headers,
      body,
      include: Boolean(opts.include),
      timeoutSeconds: script.timeoutSeconds,
      maxRetries: retriesAllowed(method, script.retries),
      paginate: Boolean(opts.paginate),
      slurp: Boolean(opts.slurp),
      jq,
    },
    client,
  );
}

export const callCommand = defineCommand<CallOptions>({
  name: 'call',
  description: 'make an authenticated request to the school API',
  examples: `
Fields:
  -f name=value sends a string; -F name=value sends a number, true, false or null as such.
  -F name=@file sends the file's text; -F name=@- reads it from standard input.
  name[key]=value nests an object ({"name":{"key":"value"}}); name[]=value appends to an array.
  Fields switch the method to POST and go in a JSON body (with -X PUT, PATCH or DELETE too),
  unless -X GET (or HEAD) is given: then they go to the query string, name[key]=value
  and name[]=value as written.
  --input <file|-> sends a raw body (Content-Type: application/json when it parses as JSON and
  no -H 'Content-Type: …' is given); fields given with it go to the query string.

Output:
  The body goes to stdout. Piped, it is byte for byte what the server sent (no newline added);
  on a terminal JSON is indented and every body ends with a newline. A non-2xx answer still
  prints its body, then exits 1 (4 when the token was rejected or lacks a scope).
  --paginate prints each page in turn, a newline between pages that lack one; --jq prints string
  results without quotes and other values as JSON, one result per line.

Retries:
  GET and HEAD answered 429 or 503 are retried up to 3 times after the Retry-After the server
  gives (seconds or a date, at most 60 s; 1, 2, 4 s without one), saying so on stderr. Other
  methods are retried only with --retry <n>. The waits count against --timeout: a retry that
  would end past it is not started.

Examples:
  $ school call /api/courses
  $ school call /api/courses --jq '.courses[].title'
  $ school call -X GET /api/echo -f q=algebra -f 'filter[level]=2' -f 'tags[]=math'
  $ school call /api/courses -f title=Algebra -F seats=30 -F open=true
  $ school call -X PUT /api/echo --input course.json
  $ school call /api/lessons --paginate --jq '.lessons[].title'
  $ school call /api/lessons --paginate --slurp --jq 'map(.lessons | length) | add'
  $ school call /api/courses --timeout 10 --retry 5
  $ school call --list --json --jq '.[] | select(.paginated) | .path'`,
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
      .option('--list', 'list the API operations and the scope each needs (from /openapi.json)')
      // For scripts and agents: pagination, jq, retries, a deadline.
      .option('--paginate', 'follow Link rel="next" pages on the same origin and print each page')
      .option('--slurp', 'with --paginate: print one JSON array holding every page')
      .option('--jq <expression>', 'filter the JSON response through jq (each page, or the whole array with --slurp)')
      .option('--retry <n>', 'retries on 429/503 for any method (GET and HEAD get 3 without it; others none)')
      .option('--timeout <seconds>', 'deadline for the whole request: body, retries and their waits included; each page its own (default 60)');
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
    paginate: booleanFlag(raw, 'paginate'),
    slurp: booleanFlag(raw, 'slurp'),
    jq: stringFlag(raw, 'jq'),
    retry: stringFlag(raw, 'retry'),
    timeout: stringFlag(raw, 'timeout'),
  }),
  run,
});

/** For the fast path, which skips the parser: `school call <path>` with global options only. */
export const runCall = run;
