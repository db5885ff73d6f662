// What the completion scripts and the reference read from the table: the visible commands, their
// flags and arguments, and what is completed for each value.
import { type ArgumentSpec, COMMAND_TABLE, type CommandSpec, type CompletionKind, type FlagSpec, GLOBAL_FLAGS, HELP_TOPICS, PROGRAM } from '../../src/commands/table.js';
import { flagWords } from '../../src/commands/syntax.js';

export interface VisibleCommand {
  name: string;
  description: string;
  flags: readonly FlagSpec[];
  args: readonly ArgumentSpec[];
}

/** The commands a person is offered, in the table's order, with their visible flags. */
export const VISIBLE: readonly VisibleCommand[] = COMMAND_TABLE.filter((c: CommandSpec) => !c.hidden).map((c) => ({
  name: c.name,
  description: c.description,
  flags: c.flags.filter((f) => !f.hidden),
  args: c.args,
}));

/** `-h, --help`: accepted everywhere, like the global flags. */
export const HELP_FLAG: FlagSpec = { name: PROGRAM.help.name, short: PROGRAM.help.short, help: PROGRAM.help.help };
/** `--version`: before any command only. */
export const VERSION_FLAG: FlagSpec = { name: PROGRAM.version.name, help: PROGRAM.version.help };

export const TOPICS = HELP_TOPICS;

/** Every flag of the line before the command: the global ones and help. */
export const GLOBALS: readonly FlagSpec[] = [...GLOBAL_FLAGS, HELP_FLAG];

/** Every flag that takes a value, each once, in the table's order. */
export const VALUE_FLAGS: readonly FlagSpec[] = (() => {
  const seen = new Map<string, FlagSpec>();
  for (const flag of [...GLOBAL_FLAGS, ...VISIBLE.flatMap((c) => c.flags)]) {
    if (!flag.value) continue;
    const key = flagWords(flag).join(' ');
    const before = seen.get(key);
    // The scripts complete a value by its flag alone: one flag, one kind of completion everywhere.
    if (before && JSON.stringify(before.complete ?? null) !== JSON.stringify(flag.complete ?? null)) {
      throw new Error(`--${flag.name} is completed two ways in the table; give it one completion kind.`);
    }
    if (!before) seen.set(key, flag);
  }
  return [...seen.values()];
})();

/** Every word that names a flag taking a value: `--profile`, `-X`, `--method`… */
export const VALUE_WORDS: readonly string[] = VALUE_FLAGS.flatMap(flagWords);

/** The flags whose values are completed (not `none`), each with its kind. */
const COMPLETED_VALUES: ReadonlyArray<{ flag: FlagSpec; complete: Exclude<CompletionKind, { kind: 'none' }> }> = VALUE_FLAGS.flatMap((flag) =>
  flag.complete && flag.complete.kind !== 'none' ? [{ flag, complete: flag.complete }] : [],
);

/** The same, flags completed alike together: `--scope` and `--add-scope` share one branch of a script. */
export const VALUE_COMPLETIONS: ReadonlyArray<{ words: string[]; complete: Exclude<CompletionKind, { kind: 'none' }> }> = (() => {
  const groups = new Map<string, { words: string[]; complete: Exclude<CompletionKind, { kind: 'none' }> }>();
  for (const { flag, complete } of COMPLETED_VALUES) {
    const key = JSON.stringify(complete);
    groups.set(key, { words: [...(groups.get(key)?.words ?? []), ...flagWords(flag)], complete });
  }
  return [...groups.values()];
})();

/** The first argument of each command whose value is completed. */
export const COMPLETED_ARGS: ReadonlyArray<{ command: string; arg: ArgumentSpec; complete: Exclude<CompletionKind, { kind: 'none' }> }> = VISIBLE.flatMap((c) =>
  c.args.slice(0, 1).flatMap((arg) => (arg.complete.kind === 'none' ? [] : [{ command: c.name, arg, complete: arg.complete as Exclude<CompletionKind, { kind: 'none' }> }])),
);

/** Whether the command has both `x` and `no-x`, which exclude each other. */
export function pairOf(flags: readonly FlagSpec[], flag: FlagSpec): FlagSpec | undefined {
  const other = flag.name.startsWith('no-') ? flag.name.slice(3) : `no-${flag.name}`;
  return flags.find((f) => f.name === other);
}

/** `words` joined by `sep` on lines of at most `width` columns, later lines after `indent`, each line ending in `tail` but the last. */
export function wrap(words: readonly string[], sep: string, width: number, indent: string, tail: string, firstColumn = 0): string {
  const lines: string[] = [];
  let line = '';
  let column = firstColumn;
  for (const word of words) {
    const piece = line ? `${sep}${word}` : word;
    if (line && column + piece.length + tail.length > width) {
      lines.push(`${line}${sep.trimEnd()}${tail}`);
      line = word;
      column = indent.length + word.length;
    } else {
      line += piece;
      column += piece.length;
    }
  }
  lines.push(line);
  return lines.join(`\n${indent}`);
}

/** A capital first letter (fish's descriptions). */
export function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The commands whose first argument is an API operation: after it, the line's flags and their
 * values are the operation's own (`school __complete api-flags <operation>`, `api-values <operation> <flag>`).
 */
export const OPERATION_COMMANDS: readonly string[] = COMPLETED_ARGS.filter(({ complete }) => complete.kind === 'operations').map(({ command }) => command);
