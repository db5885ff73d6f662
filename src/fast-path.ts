import type { CallOptions } from './commands/call/call.js';
import { COMMAND_TABLE, type CommandSpec, type FlagSpec, GLOBAL_FLAGS, optionKey } from './commands/table.js';
import type { TokenOptions } from './commands/token/token.js';
import { optionsFrom } from './commands/values.js';
import { processStream } from './iostreams.js';

// `school --help` as the build rendered it for a pipe (80 columns), or undefined when the sources
// run unbuilt; see scripts/build.mjs.
declare const __SCHOOL_HELP__: string;
const PRERENDERED_HELP: string | undefined = typeof __SCHOOL_HELP__ === 'undefined' ? undefined : __SCHOOL_HELP__;

/** The plain forms scripts call in loops, recognised without the command parser. */
export type FastCommand = { command: 'token'; opts: TokenOptions } | { command: 'call'; opts: CallOptions } | { command: 'help' };

function longFlag(flags: readonly FlagSpec[], arg: string): { flag: FlagSpec; inline?: string } | undefined {
  const eq = arg.indexOf('=');
  const name = arg.slice(2, eq < 0 ? undefined : eq);
  const flag = flags.find((f) => f.name === name);
  return flag && { flag, inline: eq < 0 ? undefined : arg.slice(eq + 1) };
}

/**
 * `school token`, `school call <path>` and `school --help` are what scripts and agents run in
 * tight loops, so they skip the command parser (commander) and the command tree, whose loading
 * costs more than the rest of the run. The table (src/commands/table.ts) says which commands and
 * flags: a command marked `fast` with all its arguments, global flags anywhere, and its own
 * flags marked `fast` after its name, each in long form. Anything else (another flag, a short
 * one, `--`, a typo) returns undefined and goes through the full parser, which handles or
 * reports it. The options are made from the table as the full parser's are, values checked alike.
 */
export function parseFast(argv: readonly string[]): FastCommand | undefined {
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))) return { command: 'help' };
  const raw: Record<string, unknown> = {};
  let spec: CommandSpec | undefined;
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) {
      if (spec) args.push(arg);
      else if (!(spec = COMMAND_TABLE.find((c) => c.fast && c.name === arg))) return undefined;
      continue;
    }
    if (!arg.startsWith('--')) return undefined;
    // A command's own flag counts only after the command's name, as the parser reads it.
    const found =
      longFlag(GLOBAL_FLAGS, arg) ??
      (spec
        ? longFlag(
            spec.flags.filter((f) => f.fast),
            arg,
          )
        : undefined);
    if (!found) return undefined;
    const { flag, inline } = found;
    if (!flag.value) {
      if (inline !== undefined || flag.name.startsWith('no-') || flag.repeat) return undefined;
      raw[optionKey(flag.name)] = true;
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith('-')) || flag.repeat) return undefined;
    raw[optionKey(flag.name)] = value;
  }
  if (!spec || args.length !== spec.args.length) return undefined;
  const opts = optionsFrom(spec, raw, args);
  if (spec.name === 'token') return { command: 'token', opts: opts as unknown as TokenOptions };
  if (spec.name === 'call') return { command: 'call', opts: opts as unknown as CallOptions };
  return undefined;
}

/**
 * Whether the line is `school api …`: its command word, past the global flags the table declares,
 * is `api`. Then the line without that word, for `school api`'s own parser (its operations' flags
 * come from the API description, unknown to the command parser); the globals stay in it.
 */
export function apiLine(argv: readonly string[]): string[] | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('-')) return arg === 'api' ? [...argv.slice(0, i), ...argv.slice(i + 1)] : undefined;
    const found = arg.startsWith('--') ? longFlag(GLOBAL_FLAGS, arg) : undefined;
    if (!found) return undefined;
    if (found.flag.value && found.inline === undefined) i++;
  }
  return undefined;
}

/** Runs a plain form and returns its exit code, or undefined for the full parser to take over. */
export async function fastPath(argv: readonly string[], signal: AbortSignal): Promise<number | undefined> {
  const api = apiLine(argv);
  if (api) {
    const { systemDeps } = await import('./deps-system.js');
    await (await import('./commands/api/api.js')).runApi((opts) => systemDeps({ verbose: Boolean(opts.verbose), signal }), api);
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
