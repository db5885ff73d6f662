// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { promises as fs } from 'node:fs';
import type { DetailLine, IndexEntry } from '../../api/api-index.js';
import { type ListingRow, listingRows } from '../../api/listing.js';
import { missingScopes } from '../../api/operations.js';
import type { Deps } from '../../deps.js';
import { AuthError, CliError, UsageError, messageOf } from '../../errors.js';
import { operationTarget } from '../../http/request-url.js';
import { ApiClient } from '../../session/api-client.js';
import type { GlobalOptions } from '../../options.js';
import { type LoadedDescription, loadApiDescription } from '../../session/api-description.js';
import { notLoggedIn, resolveSession } from '../../session/session.js';
import { insufficientScopeError } from '../../session/step-up.js';
import { printable, printableLines, terminalSafeJson } from '../../util/printable.js';
import { REDACTED } from '../../util/redact.js';
import { bodyWithoutMark } from '../../util/text-file.js';
import { commandTarget, defineCommand } from '../command.js';
import { fileErrorReason, readAll } from '../call/fields.js';
import { retriesAllowed } from '../call/retry.js';
import { commandSpec } from '../table.js';
import { checkValue } from '../values.js';
import type { OperationFlag } from '../../api/operation-flags.js';
import { RESERVED, type ParsedLine, didYouMean, flagValues, globalFlagWords, operationFlags, parseApiLine, setPath } from './flags.js';
import { apiHelp, line, operationHelp, pathParams, placeholder } from './help.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value of one of call's flags that `school api` shares, checked as call checks it (its default when not given). */
function callFlagValue(name: 'timeout' | 'retry', given: string | undefined): number | undefined {
  const flag = commandSpec('call').flags.find((f) => f.name === name);
  if (!flag?.value) return undefined;
  return given === undefined ? flag.default : (checkValue(`--${name}`, flag.value, given) as number);
}

const str = (v: string | true | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

function globalsOf(builtins: Map<string, string | true>): GlobalOptions {
  return { baseUrl: str(builtins.get('base-url')), profile: str(builtins.get('profile')), json: builtins.has('json'), verbose: builtins.has('verbose') };
}

/** The operation a name means: its command name; else an operationId written as it is in the description. */
function findEntry(index: LoadedDescription['index'], name: string): IndexEntry | undefined {
  return index.operations.find((op) => op.command === name);
}

function unknownOperation(index: LoadedDescription['index'], name: string): UsageError {
  const byId = index.operations.find((op) => op.operationId === name || op.operationId?.toLowerCase() === name.toLowerCase());
  const suggestion =
    byId?.command ??
    didYouMean(
      name.toLowerCase(),
      index.operations.map((op) => op.command),
    );
  return new UsageError(`Unknown operation '${printable(name.slice(0, 100))}'${suggestion ? ` (did you mean '${suggestion}'?)` : ''}. Run 'school api' to list the operations.`);
}

/** What a listing's marks mean, said under it for each mark it shows. */
const MARKS: ReadonlyArray<[string, (row: ListingRow) => boolean, string]> = [
  ['[a:read b:write]', (r) => r.scopes.length > 0, 'the scopes the operation asks for (any one alternative of them lets it through)'],
  ['(or anonymous)', (r) => r.scopes.length > 0 && r.anonymous, 'it also answers without a token: send it with --anonymous'],
  ['[anonymous]', (r) => !r.scopes.length && r.anonymous, 'it needs no token'],
  ['[-]', (r) => !r.scopes.length && !r.anonymous, 'it needs a token, but no particular scope'],
  ['(paginated)', (r) => r.paginated, 'it answers page by page: --paginate follows every page'],
  ['(deprecated)', (r) => r.deprecated, 'the description marks it as deprecated'],
];

/** The operations as a table for a person: by area, columns aligned whatever the lengths, every mark explained under it. */
function listingText(rows: readonly ListingRow[]): string[] {
  const byArea = new Map<string, ListingRow[]>();
  for (const row of rows) byArea.set(row.area, [...(byArea.get(row.area) ?? []), row]);
  const shown = (r: ListingRow) => ({ command: printable(r.command), path: line(r.path, 300), summary: line(r.summary, 60) });
  const nameWidth = Math.max(...rows.map((r) => shown(r).command.length));
  const methodWidth = Math.max(...rows.map((r) => r.method.length));
  const pathWidth = Math.max(...rows.map((r) => shown(r).path.length));
  const summaryWidth = Math.max(...rows.map((r) => shown(r).summary.length));
  const out: string[] = [];
  for (const area of [...byArea.keys()].sort()) {
    out.push(`${printable(area)}:`);
    for (const row of byArea.get(area)!) {
      const { command, path, summary } = shown(row);
      const scopes = row.scopes.length ? `[${row.scopes.map(printable).join(' ')}]${row.anonymous ? ' (or anonymous)' : ''}` : row.anonymous ? '[anonymous]' : '[-]';
      const marks = `${row.paginated ? ' (paginated)' : ''}${row.deprecated ? ' (deprecated)' : ''}`;
      const columns = [command.padEnd(nameWidth), row.method.padEnd(methodWidth), path.padEnd(pathWidth), summary.padEnd(summaryWidth)];
      out.push(`  ${columns.join('  ')}  ${scopes}${marks}`.trimEnd());
    }
    out.push('');
  }
  const used = MARKS.filter(([, shows]) => rows.some(shows));
  const markWidth = Math.max(...used.map(([mark]) => mark.length));
  out.push('Marks:', ...used.map(([mark, , meaning]) => `  ${mark.padEnd(markWidth)}  ${meaning}`), '');
  return out;
}

async function listRun(deps: Deps, loaded: LoadedDescription, opts: GlobalOptions, jq: string | undefined): Promise<void> {
  const ops = loaded.index.operations;
  if (opts.json || jq !== undefined) {
    const rows = listingRows(ops, await loaded.details(), RESERVED);
    if (jq !== undefined) {
      const { compileJq } = await import('../call/jq.js');
      deps.io.out.write((await compileJq(jq)).apply(JSON.stringify(rows), 'The list'));
      return;
    }
    deps.io.out.write(`${terminalSafeJson(rows, 2)}\n`);
    return;
  }
  if (!ops.length) {
    deps.io.err.write('The API description lists no operations.\n');
    return;
  }
  // The text needs no fields: no detail line is read for it.
  const out = listingText(listingRows(ops, [], RESERVED));
  out.push("Run 'school api <operation> --help' for an operation's arguments and flags.");
  deps.io.out.write(`${out.join('\n')}\n`);
  for (const note of loaded.index.notes) deps.io.err.write(`Note: ${printable(note)}\n`);
}

interface BuiltRequest {
  method: string;
  /** For display; `path` is the path and query exactly as sent (see operationTarget). */
  url: URL;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  rawBody?: Buffer;
}

/** The JSON Schema type of a value, as a flag parsed it. */
function jsonType(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}

function queryText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The flag that sets a body path, or a phrase naming the place. */
function nameOfPlace(flags: readonly OperationFlag[], location: 'body' | 'query' | 'header', path: string[]): string {
  const exact = flags.find((f) => f.field.location === location && (location === 'body' ? f.field.path?.join('\u0000') === path.join('\u0000') : f.field.name === path[0]));
  if (exact) return `--${exact.flag}`;
  const where = path.map((p) => printable(p)).join('.');
  if (location !== 'body') return `the ${location} parameter ${where}`;
  return where ? `the body's field ${where}` : 'the body';
}

async function readInput(deps: Deps, input: string): Promise<Buffer> {
  try {
    return bodyWithoutMark(input === '-' ? await readAll(deps.io.in) : await fs.readFile(input));
  } catch (err) {
    throw new UsageError(`Cannot read ${input}: ${fileErrorReason(err)}.`);
  }
}

async function buildRequest(deps: Deps, baseUrl: string, entry: IndexEntry, detail: DetailLine, flags: OperationFlag[], parsed: ParsedLine, validate: boolean): Promise<BuiltRequest> {
  const commandPath = `school api ${entry.command}`;
  const positional = pathParams(entry, detail);
  if (parsed.args.length < positional.length) {
    const missing = positional.slice(parsed.args.length).map(placeholder).join(' ');
    throw new UsageError(`'${commandPath}' needs ${missing}. Usage: ${commandPath}${positional.map((p) => ` ${placeholder(p)}`).join('')} [flags]`);
  }
  if (parsed.args.length > positional.length) {
    throw new UsageError(`Too many arguments for '${commandPath}' (it takes ${positional.length}, got ${parsed.args.length}). Run '${commandPath} --help'.`);
  }
  const pathValues = Object.fromEntries(positional.map((p, i) => [p.name, parsed.args[i]]));
  const values = flagValues(parsed, flags);
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: 'application/json, */*;q=0.5' };
  const violations: string[] = [];
  const checks: Array<{ schema: Record<string, unknown>; value: unknown; place: (p: string[]) => string }> = [];

  for (const { flag, value } of values) {
    const field = flag.field;
    if (field.location === 'query') for (const v of Array.isArray(value) ? value : [value]) query.append(field.name, queryText(v));
    else if (field.location === 'header') {
      headers[field.name.toLowerCase()] = (Array.isArray(value) ? value : [value]).map(queryText).join(', ');
    }
    if (field.location !== 'body') {
      const schema = detail.paramSchemas[`${field.location}:${field.name}`];
      if (schema) checks.push({ schema, value, place: (p) => nameOfPlace(flags, field.location as 'query' | 'header', [field.name, ...p]) });
    }
  }
  for (const p of positional) {
    const schema = detail.paramSchemas[`path:${p.name}`];
    const raw = parsed.args[positional.indexOf(p)];
    const value = p.type === 'integer' || p.type === 'number' ? (Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : raw) : raw;
    if (schema) checks.push({ schema, value, place: (rest) => `${placeholder(p)}${rest.length ? `/${rest.join('/')}` : ''}` });
  }
  if (validate) {
    for (const f of detail.fields) {
      // A required header the client sets itself (Accept, Content-Type) has no flag: the client sends it.
      if ((f.location === 'query' || f.location === 'header') && f.required && flags.some((fl) => fl.field === f) && !values.some((v) => v.flag.field === f)) {
        violations.push(`${nameOfPlace(flags, f.location, [f.name])} is required`);
      }
    }
  }

  // The body: --input, then the flags over it.
  const input = parsed.builtins.get('input');
  const bodyFlags = values.filter((v) => v.flag.field.location === 'body');
  let body: unknown;
  let rawBody: Buffer | undefined;
  if (typeof input === 'string') {
    if (!entry.body) throw new UsageError(`'${commandPath}' takes no request body (${entry.method} ${line(entry.path)}): --input has nothing to fill.`);
    rawBody = await readInput(deps, input);
    const text = rawBody.toString('utf8');
    try {
      body = JSON.parse(text);
      rawBody = undefined;
    } catch {
      if (bodyFlags.length || entry.body.json)
        throw new UsageError(`${input === '-' ? 'Standard input' : input} is not JSON: the body of '${commandPath}' is JSON${bodyFlags.length ? ', and flags set its fields' : ''}.`);
    }
  }
  if (bodyFlags.length) {
    if (body === undefined) body = {};
    if (!isObject(body)) throw new UsageError(`--input holds no JSON object, so the flags ${bodyFlags.map((v) => `--${v.flag.flag}`).join(', ')} have no fields to set.`);
    for (const { flag, value } of bodyFlags) setPath(body, flag.field.path ?? [flag.field.name], value);
  }
  if (validate && entry.body?.required && body === undefined && rawBody === undefined) {
    const required = flags.filter((f) => f.field.location === 'body' && f.field.required).map((f) => `--${f.flag}`);
    violations.push(`the request body is required: ${required.length ? `give ${required.join(', ')}` : 'give its fields as flags'} or --input <file>`);
  }
  if (validate && body !== undefined && detail.bodySchema) checks.push({ schema: detail.bodySchema, value: body, place: (p) => nameOfPlace(flags, 'body', p) });

  // A schema that only names the type the flag already parsed to asks nothing more: the validator is not loaded for it.
  const needed = checks.filter((c) => !(Object.keys(c.schema).length === 1 && c.schema.type === jsonType(c.value)));
  if (validate && needed.length) {
    const { check, CheckTookTooLong, CHECK_TIME_LIMIT_MS } = await import('./checks.js');
    for (const c of needed) {
      try {
        for (const v of check(c.schema, c.value)) violations.push(`${c.place(v.path)} ${v.expected}`);
      } catch (err) {
        // Most often a pattern of the description backtracking on a value it does not match; else
        // a schema the validator cannot follow. Either way the value is unchecked, which is not valid.
        if (err instanceof CheckTookTooLong)
          violations.push(`${c.place([])} could not be checked against the description in ${CHECK_TIME_LIMIT_MS / 1000} s (one of its patterns backtracks on this value)`);
        else violations.push(`${c.place([])} could not be checked against the description (${printable(messageOf(err).split('\n')[0])})`);
      }
    }
  }
  if (violations.length) {
    const shown = violations.slice(0, 4);
    const more = violations.length - shown.length;
    throw new UsageError(`Not sent: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`, {
      hint: `'${commandPath} --help' lists its arguments and flags; --no-validate sends it anyway.`,
    });
  }

  const { url, path } = operationTarget(baseUrl, entry.path, pathValues, query);
  if (body !== undefined || rawBody !== undefined)
    headers['content-type'] = body !== undefined && (entry.body?.json || entry.body?.contentType === '*/*') ? 'application/json' : (entry.body?.contentType ?? 'application/json');
  return { method: entry.method, url, path, headers, ...(body !== undefined ? { body } : {}), ...(rawBody ? { rawBody } : {}) };
}

function printDryRun(deps: Deps, req: BuiltRequest, tokenType: string | undefined, json: boolean): void {
  // Shown, never sent: the token itself is never read on a dry run.
  const shownCredential = tokenType ? `${tokenType} ${REDACTED}` : undefined;
  const headers: Record<string, string> = { ...req.headers, ...(shownCredential ? { authorization: shownCredential } : {}) };
  const bodyText = req.body !== undefined ? JSON.stringify(req.body, null, 2) : req.rawBody?.toString('utf8');
  if (json) {
    deps.io.out.write(
      `${terminalSafeJson({ method: req.method, url: `${req.url.origin}${req.path}`, headers, ...(req.body !== undefined ? { body: req.body } : bodyText !== undefined ? { body: bodyText } : {}) }, 2)}\n`,
    );
    return;
  }
  const title = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
  const lines = [`${req.method} ${printable(`${req.url.origin}${req.path}`)}`, ...Object.entries(headers).map(([k, v]) => `${title(k)}: ${printable(v)}`)];
  deps.io.out.write(`${lines.join('\n')}\n${bodyText !== undefined ? `\n${req.body !== undefined ? terminalSafeJson(req.body, 2) : printableLines(bodyText)}\n` : ''}`);
}

/** The width help is wrapped to: the terminal's, within reason; 80 for a pipe or a file. */
function helpWidth(deps: Deps): number {
  const columns = deps.io.outIsTTY ? (deps.io.out as { columns?: number }).columns : undefined;
  return columns && columns >= 40 ? Math.min(columns, 120) : 80;
}

/** `school api [<operation> …]`, from the command line after `api`. */
/** The flags read before the description is: where it comes from, and who asks. */
const BEFORE_THE_DESCRIPTION = ['base-url', 'profile', 'refresh', 'anonymous', 'json', 'verbose'] as const;

/**
 * `school api` from its line (what follows `api`). `depsOf` may be a function of the global flags
 * the line holds (`--verbose` decides the HTTP trace), so the line is read before anything is made.
 */
export async function runApi(depsOf: Deps | ((opts: GlobalOptions) => Deps), argv: readonly string[]): Promise<void> {
  // The first reading of the line (parseApiLine says why there are two).
  const first = parseApiLine(argv, undefined, 'school api');
  const builtins = first.builtins;
  const opts = globalsOf(builtins);
  const deps = typeof depsOf === 'function' ? depsOf(opts) : depsOf;
  const operation = first.operation;
  if (builtins.has('help') && operation === undefined) {
    deps.io.out.write(apiHelp());
    return;
  }
  // Anything but the listing's own flags is a mistake without an operation: say which.
  if (operation === undefined) parseApiLine(argv, [], 'school api');
  const target = await commandTarget(deps, opts, { anonymous: builtins.has('anonymous') });
  const baseUrl = target.baseUrl;
  if (!baseUrl) throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.');
  const loaded = await loadApiDescription(deps, baseUrl, { refresh: builtins.has('refresh') });
  if (loaded.note) deps.io.err.write(`${loaded.note}\n`);

  if (operation === undefined) {
    if (builtins.has('refresh') && !opts.json && !builtins.has('jq')) {
      const how = loaded.how === 'revalidated' ? 'unchanged (revalidated)' : loaded.how === 'fetched' ? 'fetched' : 'the cached copy (the server could not be reached)';
      deps.io.err.write(`The API description of ${printable(baseUrl)}: ${loaded.index.operations.length} operations, ${how}.\n`);
      return;
    }
    return listRun(deps, loaded, opts, str(builtins.get('jq')));
  }

  const entry = findEntry(loaded.index, operation);
  if (!entry) throw unknownOperation(loaded.index, operation);
  const detail = await loaded.detail(entry);
  if (!detail) throw new CliError(`The cached API description of ${printable(baseUrl)} is damaged: run 'school api --refresh'.`, { code: 'openapi_invalid' });
  const flags = operationFlags(detail.fields);
  const commandPath = `school api ${entry.command}`;
  const parsed = parseApiLine(argv, flags, commandPath);
  // Read again with the operation's flags, a word may change hands (`--title --profile`: a title,
  // not a flag): the description was read for the first reading, so the two must agree.
  for (const name of BEFORE_THE_DESCRIPTION) {
    if (parsed.builtins.get(name) !== builtins.get(name)) {
      throw new UsageError(`'${commandPath}' cannot tell whether --${name} is its flag or a value of another: put --${name} before the operation's name.`);
    }
  }
  const has = (name: string) => parsed.builtins.has(name);
  if (has('help')) {
    const { accepter } = await import('./checks.js');
    deps.io.out.write(operationHelp(entry, detail, flags, { width: helpWidth(deps), accepts: accepter() }));
    return;
  }
  const format = str(parsed.builtins.get('format')) ?? 'json';
  if (format !== 'json' && format !== 'table') throw new UsageError(`--format takes json or table, not "${printable(format)}".`);
  const columns = str(parsed.builtins.get('columns'))
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  if (columns && format !== 'table') throw new UsageError('--columns goes with --format table.');
  const jq = str(parsed.builtins.get('jq'));
  if (jq !== undefined && format === 'table') throw new UsageError('--jq and --format table do not go together: pick one.');
  if (has('slurp') && !has('paginate')) throw new UsageError('--slurp needs --paginate: it gathers every page into one array.');
  if (has('paginate') && entry.method !== 'GET') throw new UsageError(`--paginate follows pages of a GET listing, not ${entry.method}.`);
  if (jq !== undefined && !jq.trim()) throw new UsageError('--jq needs an expression, e.g. --jq .courses[].title');
  const timeoutSeconds = callFlagValue('timeout', str(parsed.builtins.get('timeout'))) ?? 60;
  const retries = callFlagValue('retry', str(parsed.builtins.get('retry')));

  const request = await buildRequest(deps, baseUrl, entry, detail, flags, parsed, !has('no-validate'));

  if (has('dry-run')) {
    // What would be sent, with no token read: a dry run needs no login and refreshes nothing.
    printDryRun(deps, request, target.source === 'none' ? undefined : 'Bearer', Boolean(opts.json));
    return;
  }

  // --anonymous sends no token, whatever the description says: the server answers for itself, as to `call --anonymous`.
  const anonymous = has('anonymous');
  const session = anonymous ? undefined : await resolveSession(deps, target, { notify: (text) => deps.io.err.write(text) });
  if (!session && !anonymous) {
    const err = notLoggedIn(target);
    throw new AuthError(`${err.message.replace(/\.$/, '')}: 'school api ${entry.command}' sends the request with your token. Nothing was sent.`, {
      code: 'not_logged_in',
      hint: `${entry.anonymous ? 'The operation also answers anonymous callers: add --anonymous, or log in:\n' : ''}${err.hint ?? 'school login'}`,
      ...(err.command ? { command: err.command } : {}),
    });
  }
  // A token without the operation's scope is refused by the server (anonymous callers aside): refused here first, nothing sent.
  if (session?.scope !== undefined) {
    const missing = missingScopes(entry, new Set(session.scope.split(' ').filter(Boolean)));
    if (missing.length) throw insufficientScopeError(`Not sent: 'school api ${entry.command}' (${entry.method} ${line(entry.path)})`, session, missing);
  }

  const body = request.body !== undefined ? Buffer.from(JSON.stringify(request.body)) : request.rawBody;
  const [{ performCall }, jqFilter] = await Promise.all([
    import('../call/request.js'),
    jq !== undefined ? import('../call/jq.js').then(async (m) => m.compileJq(jq, deps.io.outIsTTY ? await (await import('../call/output.js')).terminalJson(deps.io) : undefined)) : undefined,
  ]);
  const paginate = has('paginate');
  const table = format === 'table';
  let render: ((text: string, slurped: boolean) => string) | undefined;
  if (table) {
    const { renderTable } = await import('./table.js');
    render = (text, slurped) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new CliError('--format table: the answer is not JSON.', { code: 'not_json' });
      }
      return renderTable(slurped && Array.isArray(value) ? value : [value], { columns: columns ?? detail.columns, listKey: detail.listKey, asked: columns !== undefined });
    };
  }
  await performCall(
    deps,
    {
      method: request.method,
      url: request.url,
      path: request.path,
      headers: request.headers,
      body,
      include: has('include'),
      timeoutSeconds,
      maxRetries: retriesAllowed(request.method, retries),
      paginate,
      // A table of a paginated listing is one table of every page.
      slurp: has('slurp') || (paginate && table),
      jq: jqFilter,
      render,
    },
    // One refresh per run, as for call: a server that refuses every token must not spend one per page.
    new ApiClient(deps, { baseUrl, session, refreshLimit: 1 }),
  );
}

/**
 * What the command parser hands `school api` when it, not the fast path, reads the line (`school
 * --json api …` goes through either): the global flags it read before `api`, then the rest of the
 * line as written (see program.ts: a passthrough command gets its words unread).
 */
interface ParsedApiOptions extends GlobalOptions {
  operation?: string;
  argv?: string[];
}

function lineOf(opts: ParsedApiOptions): string[] {
  const words = [...(opts.operation === undefined ? [] : [opts.operation]), ...(opts.argv ?? [])];
  return [...globalFlagWords(opts as unknown as Record<string, unknown>), ...words];
}

export const apiCommand = defineCommand<ParsedApiOptions>({ name: 'api', run: (deps, opts) => runApi(deps, lineOf(opts)) });
