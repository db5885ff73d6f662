import type { IndexEntry } from '../../api/api-index.js';
import { loginHint } from '../../util/login-command.js';
import { missingScopes } from '../../api/operations.js';
import type { Deps } from '../../deps.js';
import { AuthError, CliError, UsageError } from '../../errors.js';
import { ApiClient } from '../../session/api-client.js';
import type { GlobalOptions } from '../../options.js';
import { type LoadedDescription, loadApiDescription } from '../../session/api-description.js';
import { notLoggedIn, resolveSession } from '../../session/session.js';
import { insufficientScopeError } from '../../session/step-up.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { REDACTED } from '../../util/redact.js';
import { commandTarget, defineCommand } from '../command.js';
import { retriesAllowed } from '../../run/retry.js';
import { commandSpec } from '../table.js';
import { checkValue } from '../values.js';
import { BUILTIN_FLAGS, didYouMean, findOperation, operationFlags, parseLine } from './flags.js';
import { apiHelp, line, operationHelp } from './help.js';
import { type ApiRequest, buildRequest } from './request.js';

/** A value of one of call's flags that `school api` shares, checked as call checks it (its default when not given). */
function callFlagValue(name: 'timeout' | 'retry', given: string | undefined): number | undefined {
  const flag = commandSpec('call').flags.find((f) => f.name === name);
  if (!flag?.value) return undefined;
  return given === undefined ? flag.default : (checkValue(`--${name}`, flag.value, given) as number);
}

/** `school api`'s own flags and the global ones, read before the operation (and so its flags) is known. */
function builtinsOf(argv: readonly string[]): Map<string, string | true> {
  const found = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (!arg.startsWith('-')) continue;
    const short = /^-([A-Za-z])$/.exec(arg)?.[1];
    const name = short ? Object.entries(BUILTIN_FLAGS).find(([, f]) => f.short === short)?.[0] : arg.startsWith('--') ? arg.slice(2).split('=')[0] : undefined;
    if (!name || !Object.hasOwn(BUILTIN_FLAGS, name)) continue;
    if (!BUILTIN_FLAGS[name].value) found.set(name, true);
    else if (arg.includes('=')) found.set(name, arg.slice(arg.indexOf('=') + 1));
    else if (i + 1 < argv.length) found.set(name, argv[++i]);
  }
  return found;
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

async function listRun(deps: Deps, loaded: LoadedDescription, opts: GlobalOptions, jq: string | undefined): Promise<void> {
  const ops = loaded.index.operations;
  if (opts.json || jq !== undefined) {
    const rows = [];
    const details = await loaded.details();
    for (const [i, op] of ops.entries()) {
      const detail = details[i];
      const parameters = (detail?.fields ?? [])
        .filter((f) => f.location !== 'body')
        .map((f) => ({ name: f.name, in: f.location, required: f.required, type: f.array ? `${f.type}[]` : f.type, ...(f.enum ? { enum: f.enum } : {}) }));
      rows.push({ command: op.command, method: op.method, path: op.path, summary: op.summary ?? '', scopes: op.scopes, area: op.area, anonymous: op.anonymous, parameters });
    }
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
  const byArea = new Map<string, IndexEntry[]>();
  for (const op of ops) byArea.set(op.area, [...(byArea.get(op.area) ?? []), op]);
  const nameWidth = Math.min(40, Math.max(...ops.map((o) => o.command.length)));
  const pathWidth = Math.min(40, Math.max(...ops.map((o) => line(o.path, 40).length)));
  const out: string[] = [];
  for (const area of [...byArea.keys()].sort()) {
    out.push(`${printable(area)}:`);
    for (const op of byArea.get(area)!) {
      const scopes = op.scopes.length ? op.scopes.map(printable).join(' ') + (op.anonymous ? ' (or anonymous)' : '') : op.anonymous ? 'anonymous' : '-';
      out.push(`  ${op.command.padEnd(nameWidth)}  ${op.method.padEnd(6)} ${line(op.path, 40).padEnd(pathWidth)}  ${line(op.summary, 60)}  [${scopes}]`.trimEnd());
    }
    out.push('');
  }
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
  deps.io.out.write(`${lines.join('\n')}\n${bodyText !== undefined ? `\n${req.json !== undefined ? terminalSafeJson(req.json, 2) : printable(bodyText)}\n` : ''}`);
}

/** `school api [<operation> …]`, from the command line after `api`. */
export async function runApi(deps: Deps, argv: readonly string[]): Promise<void> {
  const builtins = builtinsOf(argv);
  const opts = globalsOf(builtins);
  const operation = findOperation(argv);
  if (builtins.has('help') && operation === undefined) {
    deps.io.out.write(apiHelp());
    return;
  }
  if (operation === undefined) {
    // Anything but the listing's own flags before the operation's name is a mistake: say which.
    parseLine(argv, [], 'school api');
  }
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
  const parsed = parseLine(argv, flags, `school api ${entry.command}`);
  const has = (name: string) => parsed.builtins.has(name);
  if (has('help')) {
    deps.io.out.write(operationHelp(entry, detail, flags));
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
      return renderTable(slurped && Array.isArray(value) ? value : [value], { columns: columns ?? detail.columns, listKey: detail.listKey });
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

export interface ApiOptions extends GlobalOptions {
  argv: string[];
}

/** Options the command parser made (`school help api` aside, the fast path hands `school api` its line): the line again, as written. */
interface ParsedApiOptions extends GlobalOptions {
  operation?: string;
  argv?: string[];
  [flag: string]: unknown;
}

function lineOf(opts: ParsedApiOptions): string[] {
  const argv = [...(opts.operation === undefined ? [] : [opts.operation]), ...(opts.argv ?? [])];
  if (opts.baseUrl) argv.push('--base-url', opts.baseUrl);
  if (opts.profile) argv.push('--profile', opts.profile);
  if (opts.description !== undefined) argv.push('--description', opts.description);
  if (opts.json) argv.push('--json');
  if (opts.verbose) argv.push('--verbose');
  for (const [name, flag] of Object.entries(BUILTIN_FLAGS)) {
    const value = opts[name.replace(/^no-/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())];
    if (name === 'no-validate') {
      if (value === false) argv.push('--no-validate');
    } else if (flag.value && (typeof value === 'string' || typeof value === 'number') && !['base-url', 'profile', 'description'].includes(name)) argv.push(`--${name}`, String(value));
    else if (!flag.value && value === true && !['json', 'verbose', 'help'].includes(name)) argv.push(`--${name}`);
  }
  return argv;
}

export const apiCommand = defineCommand<ParsedApiOptions>({ name: 'api', run: (deps, opts) => runApi(deps, lineOf(opts)) });
