/**
 * The flag that sets each field of an operation on the command line (`--per-page`,
 * `--address.city`): named once here, for `school api`'s parser and help, completion, the
 * listing's `flag`s and the skill's examples, so every one of them names the same flag; and the
 * order the positional arguments (path parameters) are taken in.
 */
import type { FieldSpec } from './operation-detail.js';
import { kebabCase } from './operations.js';
import { sendableHeader } from './request-shape.js';
import { printable } from '../util/printable.js';

export interface OperationFlag {
  /** Without the leading dashes. */
  flag: string;
  field: FieldSpec;
  /** Why the flag is not plain `--<name>`, when it is not. */
  renamed?: string;
}

const LOCATION_WORD: Record<FieldSpec['location'], string> = { path: 'path parameter', query: 'query parameter', header: 'header', cookie: 'cookie', body: 'body field' };

/** A flag name from a field's name: kebab-case, dots kept between the parts of a body path. */
function baseFlag(field: FieldSpec): string {
  const parts = field.path ?? [field.name];
  return parts.map((p) => kebabCase(p) || 'x').join('.');
}

/** A header parameter the request may carry (the rule is the builder's: request-shape.ts sendableHeader). */
function sendable(field: FieldSpec): boolean {
  return field.location !== 'header' || sendableHeader(field.name);
}

/**
 * The flags of an operation's fields (path parameters are positional and get none; headers the
 * client sets itself, such as Authorization, get none either). A name two
 * fields would share, or one of `school api`'s own, gets the field's location as a prefix
 * (`--query-title`, `--body-title`); a name still taken gets a number. Never silently shadowed:
 * `renamed` says why.
 */
export function flagsOf(fields: readonly FieldSpec[], own: ReadonlySet<string>): OperationFlag[] {
  const candidates = fields.filter((f) => f.location !== 'path' && sendable(f)).map((field) => ({ field, base: baseFlag(field) }));
  const count = new Map<string, number>();
  for (const c of candidates) count.set(c.base, (count.get(c.base) ?? 0) + 1);
  const reserved = (name: string) => own.has(name) || name.startsWith('no-');
  const taken = new Set<string>(own);
  for (const c of candidates) if (count.get(c.base) === 1 && !reserved(c.base)) taken.add(c.base);
  return candidates.map(({ field, base }) => {
    if (count.get(base) === 1 && !reserved(base)) return { flag: base, field };
    let flag = `${field.location}-${base}`;
    for (let i = 2; taken.has(flag); i++) flag = `${field.location}-${base}-${i}`;
    taken.add(flag);
    const why = reserved(base) ? `--${base} is a flag of school api` : `another field is also named ${base}`;
    return { flag, field, renamed: `the ${LOCATION_WORD[field.location]} ${printable(field.name)} (${why})` };
  });
}

/**
 * The path parameters in the order the command takes them as arguments: the order the path names
 * them, whatever order they are declared in (Kubernetes declares `{name}` before `{namespace}`).
 */
export function pathArguments(path: string, fields: readonly FieldSpec[]): FieldSpec[] {
  const at = (f: FieldSpec) => path.indexOf(`{${f.name}}`);
  return fields.filter((f) => f.location === 'path').sort((a, b) => at(a) - at(b));
}
