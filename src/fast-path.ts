import type { CallOptions } from './commands/call/call.js';
import type { TokenOptions } from './commands/token/token.js';
import { processStream } from './iostreams.js';
import type { GlobalOptions } from './options.js';

// `school --help` as the build rendered it for a pipe (80 columns), or undefined when the sources
// run unbuilt; see scripts/build.mjs.
declare const __SCHOOL_HELP__: string;
const PRERENDERED_HELP: string | undefined = typeof __SCHOOL_HELP__ === 'undefined' ? undefined : __SCHOOL_HELP__;

/** The plain forms scripts call in loops, recognised without the command parser. */
export type FastCommand = { command: 'token'; opts: TokenOptions } | { command: 'call'; opts: CallOptions } | { command: 'help' };

/**
 * `school token`, `school call <path>` and `school --help` are what scripts and agents run in
 * tight loops, so they skip the command parser (commander) and the command tree, whose loading
 * costs more than the rest of the run. Only the plain forms with global options are recognised:
 * anything else (another flag such as --paginate or --for-ci, `--`, a typo) returns undefined
 * and goes through the full parser, which handles or reports it.
 */
export function parseFast(argv: readonly string[]): FastCommand | undefined {
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))) return { command: 'help' };
  // The global options as the full parser gives them (see globalOptions in commands/command.ts).
  const opts: GlobalOptions = { baseUrl: undefined, profile: undefined, json: false, verbose: false };
  const positionals: string[] = [];
  // `token --min-ttl N` is what scripts run before a long job, so it stays on the fast path too.
  let minTtl: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // --min-ttl is token's own flag, not a global one: anywhere else it is the parser's to handle or refuse.
    if (arg.startsWith('--min-ttl') && positionals[0] !== 'token') return undefined;
    if (arg === '--json') opts.json = true;
    else if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--profile' || arg === '--base-url' || arg === '--min-ttl') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) return undefined;
      if (arg === '--profile') opts.profile = value;
      else if (arg === '--min-ttl') minTtl = value;
      else opts.baseUrl = value;
    } else if (arg.startsWith('--profile=')) opts.profile = arg.slice('--profile='.length);
    else if (arg.startsWith('--base-url=')) opts.baseUrl = arg.slice('--base-url='.length);
    else if (arg.startsWith('--min-ttl=')) minTtl = arg.slice('--min-ttl='.length);
    else if (arg.startsWith('-')) return undefined;
    else positionals.push(arg);
  }
  const [command, ...args] = positionals;
  // What the full parser makes of each plain form: every flag of the command's own left unset.
  if (command === 'token' && args.length === 0) return { command, opts: { ...opts, forCi: false, minTtl } };
  if (command === 'call' && args.length === 1) {
    return { command, opts: { ...opts, path: args[0], include: false, anonymous: false, list: false, paginate: false, slurp: false } };
  }
  return undefined;
}

/**
 * `school api …` past the global options: the rest of the line, which the command parses itself
 * (its operations' flags come from the API description, unknown to the command parser).
 */
export function apiLine(argv: readonly string[]): string[] | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--profile' || arg === '--base-url') i++;
    else if (arg === '--json' || arg === '--verbose' || arg.startsWith('--profile=') || arg.startsWith('--base-url=')) continue;
    else return arg === 'api' ? [...argv.slice(0, i), ...argv.slice(i + 1)] : undefined;
  }
  return undefined;
}

/** Runs a plain form and returns its exit code, or undefined for the full parser to take over. */
export async function fastPath(argv: readonly string[], signal: AbortSignal): Promise<number | undefined> {
  const api = apiLine(argv);
  if (api) {
    const { systemDeps } = await import('./deps-system.js');
    const verbose = api.includes('--verbose');
    await (await import('./commands/api/api.js')).runApi(systemDeps({ verbose, signal }), api);
    return 0;
  }
  const fast = parseFast(argv);
  if (!fast) return undefined;
  if (fast.command === 'help') {
    // A terminal gets help wrapped to its width, which only the parser can do.
    const stdout = processStream('stdout');
    if (PRERENDERED_HELP === undefined || stdout.isTTY) return undefined;
    stdout.write(PRERENDERED_HELP);
    return 0;
  }
  const { systemDeps } = await import('./deps-system.js');
  const deps = systemDeps({ verbose: Boolean(fast.opts.verbose), signal });
  if (fast.command === 'token') await (await import('./commands/token/token.js')).runToken(deps, fast.opts);
  else await (await import('./commands/call/call.js')).runCall(deps, fast.opts);
  return 0;
}
