/**
 * `school api`'s own flags, read from the command table, and the flags an operation's fields take
 * beside them. Here, beside the table rather than in the api command's folder, because every
 * front-end that names an operation's flags names them as `school api` takes them: `school api`
 * itself, `call --list` (the listing's `flag`s), completion and the skill's examples.
 */
import type { FieldSpec } from '../api/operation-detail.js';
import { type OperationFlag, flagsOf } from '../api/operation-flags.js';
import { flagHelp } from './syntax.js';
import { GLOBAL_FLAGS, commandSpec } from './table.js';

/**
 * `school api`'s own flags: a value each, or none (a switch). Global flags included. Read from the
 * command table (its api row and the global flags), so they are declared once; `-h, --help` is the
 * command's own, since it shows the operation's help.
 */
export const BUILTIN_FLAGS: Readonly<Record<string, { value: boolean; short?: string; help: string }>> = Object.fromEntries([
  ...commandSpec('api').flags.map((f) => [f.name, { value: Boolean(f.value), ...(f.short ? { short: f.short } : {}), help: flagHelp(f) }] as const),
  ['help', { value: false, short: 'h', help: 'show the operation, its flags and an example' }] as const,
  ...GLOBAL_FLAGS.map((f) => [f.name, { value: Boolean(f.value), help: f.help }] as const),
]);

/** The names an operation's flag may not take: `school api`'s own. */
export const RESERVED: ReadonlySet<string> = new Set(Object.keys(BUILTIN_FLAGS));

/**
 * The flags of an operation's fields (see src/api/operation-flags.ts), none taking a name of
 * `school api`'s own.
 */
export function operationFlags(fields: readonly FieldSpec[]): OperationFlag[] {
  return flagsOf(fields, RESERVED);
}
