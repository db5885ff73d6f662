import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { ABSOLUTE_URL } from '../../http/request-url.js';
import { ApiClient } from '../../session/api-client.js';
import { loadApiDescription } from '../../session/api-description.js';
import type { GlobalOptions } from '../../options.js';
import { type Session, resolveSession } from '../../session/session.js';
import type { Target } from '../../session/target.js';
import { commandTarget, defineCommand } from '../command.js';
import { readNamedFile } from '../input-file.js';
import { buildFields, parseHeader, toQuery } from './fields.js';
import type { JqFilter } from '../../run/jq.js';
import { terminalJson } from '../../run/output.js';
import { performCall } from '../../run/request.js';
import { retriesAllowed } from '../../run/retry.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { parsesAsJson } from '../../util/json.js';
import { bodyWithoutMark } from '../../util/text-file.js';
import { EXAMPLE_BASE_URL, loginCommandText, runCommandHint } from '../../util/login-command.js';

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
  /** --retry: retries on 429/503 for any method; unset, GET and HEAD get the default. */
  retry?: number;
  /** --timeout: seconds for the whole request (the table's default when not given). */
  timeout: number;
}

/** The script-facing flags that go together, checked before anything is sent: a mistake costs no request. */
function checkScriptOptions(opts: CallOptions): void {
  if (opts.slurp && !opts.paginate) throw new UsageError('--slurp needs --paginate: it gathers every page into one array.');
  if (opts.jq !== undefined && !opts.jq.trim()) throw new UsageError('--jq needs an expression, e.g. --jq .courses[].title');
}

async function listRun(deps: Deps, opts: CallOptions, baseUrl: string, target: Target): Promise<void> {
  // The description cache `school api` uses: fresh, revalidated, or the stale copy with a note.
  const loaded = await loadApiDescription(deps, baseUrl, { target });
  if (loaded.note) deps.io.err.write(`${loaded.note}\n`);
  const [{ listingRows }, { RESERVED }] = await Promise.all([import('../../api/listing.js'), import('../api-own-flags.js')]);
  const ops = loaded.index.operations;
  if (opts.jq !== undefined || opts.json) {
    // The rows of `school api --json`: one listing for scripts, whichever command prints it.
    const rows = listingRows(ops, await loaded.details(), RESERVED);
    if (opts.jq !== undefined) {
      // --jq implies the JSON form.
      const filter = await (await import('../../run/jq.js')).compileJq(opts.jq, deps.io.outIsTTY ? await terminalJson(deps.io) : undefined);
      deps.io.out.write(filter.apply(JSON.stringify(rows), 'The list'));
      return;
    }
    // JSON escapes every control character itself; the listing below is for a terminal.
    deps.io.out.write(`${terminalSafeJson(rows, 2)}\n`);
    return;
  }
  const rows = listingRows(ops, [], RESERVED);
  const scopesOf = (o: (typeof rows)[number]) => `${o.scopes.length ? o.scopes.map(printable).join(' ') : '-'}${o.anonymous && o.scopes.length ? ' (or anonymous)' : ''}`;
  const shown = rows.map((o) => ({ ...o, path: printable(o.path), summary: printable(o.summary || (o.operationId ?? '')) }));
  const pathWidth = Math.max(...shown.map((o) => o.path.length), 4);
  const scopeWidth = Math.max(...shown.map((o) => scopesOf(o).length), 5);
  for (const op of shown) {
    const line = `${op.method.padEnd(7)} ${op.path.padEnd(pathWidth)}  ${scopesOf(op).padEnd(scopeWidth)}  ${op.summary}${op.paginated ? ' (paginated)' : ''}`;
    deps.io.out.write(`${line.trimEnd()}\n`);
  }
}

async function run(deps: Deps, opts: CallOptions): Promise<void> {
  const path = opts.path;

  const target = await commandTarget(deps, opts, { anonymous: opts.anonymous, profileMustExist: true });
  const session: Session | undefined = await resolveSession(deps, target, { notify: (text) => deps.io.err.write(text) });
  const baseUrl = session?.baseUrl ?? target.baseUrl;

  if (opts.list) {
    if (!baseUrl) throw new UsageError('No base URL: pass --base-url or log in first.');
    return listRun(deps, opts, baseUrl, target);
  }
  if (!path) throw new UsageError('Missing the API path, e.g. `school call /api/courses`.');
  checkScriptOptions(opts);
  const absolute = ABSOLUTE_URL.test(path);
  if (!baseUrl && !absolute) {
    throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.', {
      ...runCommandHint(loginCommandText({ baseUrl: target.suggestedBaseUrl ?? EXAMPLE_BASE_URL, profile: target.profile })),
    });
  }
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
    body = bodyWithoutMark(await readNamedFile(opts.input, deps.io.in));
    // A JSON file is sent as JSON unless the user said otherwise: servers answer 415 to a bare body.
    if (headers['content-type'] === undefined && parsesAsJson(body.toString('utf8'))) headers['content-type'] = 'application/json';
  }

  let jq: JqFilter | undefined;
  if (opts.jq !== undefined) jq = await (await import('../../run/jq.js')).compileJq(opts.jq, deps.io.outIsTTY ? await terminalJson(deps.io) : undefined);

  if (!session && !opts.anonymous) deps.io.err.write('Not logged in: sending the request anonymously.\n');
  await performCall(
    deps,
    {
      method,
      url,
      headers,
      body,
      include: Boolean(opts.include),
      timeoutSeconds: opts.timeout,
      maxRetries: retriesAllowed(method, opts.retry),
      paginate: Boolean(opts.paginate),
      slurp: Boolean(opts.slurp),
      jq,
      // Only for the target's own base URL: an absolute URL elsewhere is no school to log in to.
      ...(baseUrl && url.origin === new URL(baseUrl).origin ? { loginTarget: { profile: target.profile, baseUrl } } : {}),
    },
    client,
  );
}

export const callCommand = defineCommand<CallOptions>({ name: 'call', run });

/** For the fast path, which skips the parser: `school call <path>` with global options only. */
export const runCall = run;
