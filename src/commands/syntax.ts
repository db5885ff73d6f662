import type { ArgumentSpec, CommandSpec, FlagSpec } from './table.js';

// How the table's rows are spelled in help, completion scripts and the reference: one spelling.

/** A flag as commander spells it: `-X, --method <method>`. */
export function flagSyntax(flag: FlagSpec): string {
  return `${flag.short ? `-${flag.short}, ` : ''}--${flag.name}${flag.value ? ` <${flag.value.placeholder}>` : ''}`;
}

/** A flag's help line: its help, and its default where it has one. */
export function flagHelp(flag: FlagSpec): string {
  return flag.default === undefined ? flag.help : `${flag.help} (default ${flag.default})`;
}

/** The words a flag is typed as: `-X` and `--method`. */
export function flagWords(flag: FlagSpec): string[] {
  return [...(flag.short ? [`-${flag.short}`] : []), `--${flag.name}`];
}

/** An argument as commander spells it: `<shell>` or `[path]`. */
export function argumentSyntax(arg: ArgumentSpec): string {
  return arg.required ? `<${arg.name}>` : `[${arg.name}]`;
}

/** What `school <name> --help` shows after the flags: how they work together, and examples. */
export function afterHelp(spec: Pick<CommandSpec, 'details' | 'examples'>): string {
  const parts = [spec.details, spec.examples.length ? `Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}` : undefined].filter((p) => p !== undefined);
  return parts.length ? `\n${parts.join('\n\n')}` : '';
}
