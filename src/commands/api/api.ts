import type { IndexEntry } from '../../api/api-index.js';
import { type ListingRow, listingRows } from '../../api/listing.js';
import { loginHint } from '../../util/login-command.js';
import { missingScopes } from '../../api/operations.js';
import type { Deps } from '../../deps.js';
import { AuthError, CliError, UsageError } from '../../errors.js';
import { ApiClient } from '../../session/api-client.js';
import type { GlobalOptions } from '../../options.js';
import { type LoadedDescription, loadApiDescription } from '../../session/api-description.js';
import { notLoggedIn, resolveSession } from '../../session/session.js';
import { insufficientScopeError } from '../../session/step-up.js';
import { printable, printableLines, terminalSafeJson } from '../../util/printable.js';
import { REDACTED } from '../../util/redact.js';
import { commandTarget, defineCommand } from '../command.js';
import { retriesAllowed } from '../../run/retry.js';
import { commandSpec } from '../table.js';
import { checkValue } from '../values.js';
import { RESERVED, operationFlags } from '../api-own-flags.js';
import { didYouMean, globalFlagWords, parseApiLine } from './flags.js';
import { apiHelp, line, operationHelp } from './help.js';
import { type ApiRequest, buildRequest } from './request.js';

/** A value of one of call's flags that `school api` shares, checked as call checks it (its default when not given). */
function callFlagValue(name: 'timeout' | 'retry', given: string | undefined): number | undefined {
  const flag = commandSpec('call').flags.find((f) => f.name === name);
  if (!flag?.value) return undefined;
  return given === undefined ? flag.default : (checkValue(`--${name}`, flag.value, given) as number);
}

const str = (v: string | true | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

function globalsOf(builtins: Map<string, string | true>): GlobalOptions {
  const description = str(builtins.get('description'));
  return {
    baseUrl: str(builtins.get('base-url')),
    profile: str(builtins.get('profile')),
    ...(description !== undefined ? { description } : {}),
    json: builtins.has('json'),
    verbose: builtins.has('verbose'),
  };
}

/** The operation a name means: its command name; else an operationId written as it is in the description. */
function findEntry(index: LoadedDescription['index'], name: string): IndexEntry | undefined {
  return index.entryNamed ? index.entryNamed(name) : index.operations.find((op) => op.command === name);
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
      const { compileJq } = await import('../../run/jq.js');
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

function printDryRun(deps: Deps, req: ApiRequest, tokenType: string | undefined, json: boolean): void {
  // Shown, never sent: the token itself is never read on a dry run.
  const shownCredential = tokenType ? `${tokenType} ${REDACTED}` : undefined;
  const headers: Record<string, string> = { ...req.headers, ...(shownCredential ? { authorization: shownCredential } : {}) };
  const bodyText = req.body?.toString('utf8');
  const shown = req.json !== undefined ? { body: req.json } : bodyText !== undefined ? { body: bodyText } : {};
  if (json) {
    deps.io.out.write(`${terminalSafeJson({ method: req.method, url: `${req.url.origin}${req.path}`, headers, ...shown }, 2)}\n`);
    return;
  }
  const title = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
  const lines = [`${req.method} ${printable(`${req.url.origin}${req.path}`)}`, ...Object.entries(headers).map(([k, v]) => `${title(k)}: ${printable(v)}`)];
  deps.io.out.write(`${lines.join('\n')}\n${bodyText !== undefined ? `\n${req.json !== undefined ? terminalSafeJson(req.json, 2) : printableLines(bodyText)}\n` : ''}`);
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
  const loaded = await loadApiDescription(deps, baseUrl, { refresh: builtins.has('refresh'), target });
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
  if (detail.unchecked) deps.io.err.write(`Note: ${entry.command}: ${detail.unchecked}; its values are sent unchecked.\n`);
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

  const request = await buildRequest(deps, { baseUrl, entry, detail, flags, parsed, validate: !has('no-validate') });

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
      hint: `${entry.anonymous ? 'The operation also answers anonymous callers: add --anonymous, or log in:\n' : ''}${err.hint ?? loginHint(target.profile, baseUrl)}`,
      ...(err.command ? { command: err.command } : {}),
    });
  }
  // A token without the operation's scope is refused by the server (anonymous callers aside): refused here first, nothing sent.
  if (session?.scope !== undefined) {
    const missing = missingScopes(entry, new Set(session.scope.split(' ').filter(Boolean)));
    if (missing.length) throw insufficientScopeError(`Not sent: 'school api ${entry.command}' (${entry.method} ${line(entry.path)})`, session, missing);
  }

  const [{ performCall }, jqFilter] = await Promise.all([
    import('../../run/request.js'),
    jq !== undefined ? import('../../run/jq.js').then(async (m) => m.compileJq(jq, deps.io.outIsTTY ? await (await import('../../run/output.js')).terminalJson(deps.io) : undefined)) : undefined,
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
      body: request.body,
      include: has('include'),
      timeoutSeconds,
      maxRetries: retriesAllowed(request.method, retries),
      paginate,
      // A table of a paginated listing is one table of every page.
      slurp: has('slurp') || (paginate && table),
      jq: jqFilter,
      render,
      // Whom a refused request logs in as, for the command the runner's problem names.
      loginTarget: { profile: target.profile, baseUrl },
    },
    // One refresh per run, as for call: a server that refuses every token must not spend one per page.
    // An operation's own server (on the base URL's origin, or elsewhere with no token) is the client's base.
    new ApiClient(deps, { baseUrl: request.server ?? baseUrl, session, refreshLimit: 1 }),
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
