/**
 * The command line of `school api`: its own flags (named in ../api-own-flags.ts), and the flags
 * each operation gets from its description (a parameter or a body property each, typed from its
 * schema). Made at run time from the operation's detail, since they differ per operation and per
 * server; parsed here rather than by the command parser, which knows flags declared before it runs.
 */
import type { FieldSpec, FieldType } from '../../api/operation-detail.js';
import { editDistance } from '../../util/edit-distance.js';
import type { OperationFlag } from '../../api/operation-flags.js';
import { UsageError } from '../../errors.js';
import { BUILTIN_FLAGS } from '../api-own-flags.js';
import { GLOBAL_FLAGS, optionKey } from '../table.js';
import { printable } from '../../util/printable.js';

const SHORT: Record<string, string> = Object.fromEntries(Object.entries(BUILTIN_FLAGS).flatMap(([name, f]) => (f.short ? [[f.short, name]] : [])));

export interface ParsedLine {
  /** The operation's name, when one was given. */
  operation?: string;
  /** The positional arguments after it. */
  args: string[];
  /** `school api`'s own flags: true for a switch, the value(s) otherwise. */
  builtins: Map<string, string | true>;
  /** The operation's flags, each with every value given, in order. */
  values: Map<string, string[]>;
}

function longName(arg: string): string | undefined {
  if (arg.startsWith('--')) return arg.slice(2).split('=')[0];
  if (/^-[A-Za-z]$/.test(arg)) return SHORT[arg.slice(1)];
  return undefined;
}

function closest(name: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const c of candidates) {
    // Names far apart in length are no match: skipped without the full comparison (descriptions may have thousands).
    const d = Math.abs(name.length - c.length) > 10 ? Number.POSITIVE_INFINITY : editDistance(name, c);
    if (!best || d < best.distance) best = { name: c, distance: d };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** The names a mistyped one may have meant: the closest by edit distance, or those it begins. */
export function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  return closest(name, candidates) ?? candidates.find((c) => c.startsWith(name) || (name.length >= 4 && c.includes(name)));
}

/**
 * The one reader of `school api`'s command line (what follows `api`): `school api`'s own flags and
 * the global ones (from the command table), the operation's name (the first argument), its path
 * arguments, and the operation's flags.
 *
 * The operation's flags are known only once its description is read, and reading it needs the
 * line's `--base-url`, `--profile` and `--refresh`. So the line is read twice by this same
 * function: first with `flags` undefined, when a flag it does not know is taken to be the
 * operation's (with the next word as its value unless that is a flag, or it has `=`), and then
 * with the operation's flags, when a flag it does not know is an error. The command checks that
 * both readings agree on what was needed to read the description.
 */
export function parseApiLine(argv: readonly string[], flags: readonly OperationFlag[] | undefined, commandPath: string): ParsedLine {
  const byName = new Map((flags ?? []).map((f) => [f.flag, f]));
  const line: ParsedLine = { args: [], builtins: new Map(), values: new Map() };
  const positionals: string[] = [];
  const add = (name: string, value: string) => line.values.set(name, [...(line.values.get(name) ?? []), value]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = longName(arg);
    const inline = arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : undefined;
    const op = name === undefined ? undefined : byName.get(name);
    const negated = name?.startsWith('no-') ? byName.get(name.slice(3)) : undefined;
    if (op) {
      let value = inline;
      if (value === undefined && op.field.type === 'boolean' && !op.field.array) {
        // A switch: `--open`, `--open=false`, or `--open false`.
        value = argv[i + 1] === 'true' || argv[i + 1] === 'false' ? argv[++i] : 'true';
      }
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`The option '--${op.flag}' of '${commandPath}' needs a value. Run '${commandPath} --help'.`);
        value = argv[++i];
      }
      add(op.flag, value);
      continue;
    }
    // `--filter.status open`: one property of an object-valued parameter (`--filter '{"status":"open"}'` gives it whole).
    const objectFlag = name === undefined ? undefined : byName.get(name.split('.')[0]);
    if (objectFlag && objectFlag.field.location !== 'body' && objectFlag.field.type === 'json' && !objectFlag.field.array && /^[^.]+(\.[^.]+)+$/.test(name!)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`The option '--${printable(name!)}' of '${commandPath}' needs a value. Run '${commandPath} --help'.`);
      add(name!, value);
      continue;
    }
    if (negated && negated.field.type === 'boolean' && inline === undefined) {
      add(negated.flag, 'false');
      continue;
    }
    if (name !== undefined && Object.hasOwn(BUILTIN_FLAGS, name)) {
      if (!BUILTIN_FLAGS[name].value) {
        if (inline !== undefined) throw new UsageError(`The option '--${name}' of '${commandPath}' takes no value. Run '${commandPath} --help'.`);
        line.builtins.set(name, true);
        continue;
      }
      let value = inline;
      if (value === undefined) {
        if (i + 1 >= argv.length) throw new UsageError(`The option '--${name}' of '${commandPath}' needs a value. Run '${commandPath} --help'.`);
        value = argv[++i];
      }
      line.builtins.set(name, value);
      continue;
    }
    if (flags === undefined && arg.startsWith('--')) {
      // The first reading, before the operation's flags are known: an operation's flag, its value next
      // unless that is a flag (a value may begin with a dash: `--sort -modified_at`, `--offset -5`).
      const next = argv[i + 1];
      const value = inline ?? (next !== undefined && !next.startsWith('--') && longName(next) === undefined ? argv[++i] : 'true');
      add(arg.slice(2).split('=')[0], value);
      continue;
    }
    const shown = printable(arg.split('=')[0]);
    const suggestion = didYouMean(shown.replace(/^-+/, ''), [...byName.keys(), ...Object.keys(BUILTIN_FLAGS)]);
    throw new UsageError(`Unknown option '${shown}' for '${commandPath}'${suggestion ? ` (did you mean '--${suggestion}'?)` : ''}. Run '${commandPath} --help'.`);
  }
  [line.operation, ...line.args] = positionals;
  if (line.operation === undefined) line.args = [];
  return line;
}

/** The global flags a parser before `school api` read (`--base-url`, `--profile`, `--json`, `--verbose`), written back as the command line has them, from the table. */
export function globalFlagWords(opts: Readonly<Record<string, unknown>>): string[] {
  const words: string[] = [];
  for (const f of GLOBAL_FLAGS) {
    const value = opts[optionKey(f.name)];
    if (f.value && typeof value === 'string') words.push(`--${f.name}`, value);
    else if (!f.value && value === true) words.push(`--${f.name}`);
  }
  return words;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function typeWord(field: FieldSpec): string {
  const orNull = field.nullable ? ', or null' : '';
  if (field.enum) return `one of ${field.enum.map((v) => printable(String(v))).join(', ')}${orNull}`;
  return `${{ string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false', json: 'a JSON value (or text)' }[field.type]}${field.type === 'json' ? '' : orNull}`;
}

/** One value of a flag, as its type says: an integer, a number, true/false, JSON, or the text itself. */
export function typedValue(flag: string, field: FieldSpec, raw: string): unknown {
  let value: unknown = raw;
  const type: FieldType = field.type;
  const wrong = () => new UsageError(`--${flag} expects ${typeWord(field)}, not "${printable(raw.slice(0, 100))}".`);
  // A field that may be null takes the word null for it (a JSON field reads it as JSON anyway).
  if (field.nullable && raw === 'null') return null;
  if (type === 'integer') {
    if (!INTEGER.test(raw) || !Number.isSafeInteger(Number(raw))) throw wrong();
    value = Number(raw);
  } else if (type === 'number') {
    if (!NUMBER.test(raw) || !Number.isFinite(Number(raw))) throw wrong();
    value = Number(raw);
  } else if (type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw wrong();
    value = raw === 'true';
  } else if (type === 'json') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw; // plain text is a string
    }
  }
  if (field.enum && !field.enum.some((allowed) => allowed === value || (typeof allowed !== 'string' && String(allowed) === raw))) throw wrong();
  if (field.enum && typeof value === 'string') value = field.enum.find((allowed) => String(allowed) === raw) ?? value;
  return value;
}

/**
 * The type of a property of an object-valued parameter, where its schema says (see flagValues):
 * a simple type, or (`array`) an array of items of that type.
 */
export type PropertyType = (flag: OperationFlag, path: readonly string[]) => { type: FieldType; array: boolean } | undefined;

/**
 * Each operation flag given, typed: an array for a repeated (array) flag; an object-valued
 * parameter's dotted flags (`--created.gt 5`) set into its object, each value typed as its
 * property's schema says (JSON, or the text itself, where it says nothing).
 */
export function flagValues(line: ParsedLine, flags: readonly OperationFlag[], propertyType: PropertyType = () => undefined): Array<{ flag: OperationFlag; value: unknown }> {
  const out: Array<{ flag: OperationFlag; value: unknown }> = [];
  for (const f of flags) {
    const raws = line.values.get(f.flag);
    const dotted = [...line.values].filter(([name]) => name.startsWith(`${f.flag}.`) && f.field.location !== 'body');
    if (!raws && !dotted.length) continue;
    if (raws && !f.field.array && raws.length > 1) throw new UsageError(`--${f.flag} was given ${raws.length} times; it takes one value.`);
    const typed = (raws ?? []).flatMap((raw) => enumItems(f.field, raw) ?? [raw]).map((raw) => typedValue(f.flag, f.field, raw));
    let value: unknown = f.field.array ? typed : typed[0];
    if (dotted.length) {
      if (value === undefined) value = {};
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`--${f.flag} is not an object, so its properties cannot be set one by one.`);
      for (const [name, given] of dotted) {
        const path = name.slice(f.flag.length + 1).split('.');
        const property = propertyType(f, path);
        // An array property (`filter[name]` of names) takes its items one per flag: `--filter.name a --filter.name b`.
        if (given.length > 1 && !property?.array) throw new UsageError(`--${name} was given ${given.length} times; it takes one value.`);
        // The whole array as JSON (`--filter.name '["a","b"]'`) is taken too.
        const whole = property?.array && given.length === 1 ? jsonArray(given[0]) : undefined;
        const typed = whole ?? given.map((raw) => typedValue(name, { ...f.field, type: property?.type ?? 'json', enum: undefined }, raw));
        setPath(value as Record<string, unknown>, path, property?.array ? typed : typed[0]);
      }
    }
    out.push({ flag: f, value });
  }
  return out;
}

/**
 * A repeatable flag of allowed values given them joined with commas, as the API's own documents
 * write them (`--type album,track`): its items, where each is an allowed value and the whole is not.
 */
function enumItems(field: FieldSpec, raw: string): string[] | undefined {
  if (!field.array || !field.enum || !raw.includes(',')) return undefined;
  const allowed = new Set(field.enum.map(String));
  const items = raw.split(',');
  return !allowed.has(raw) && items.every((item) => allowed.has(item)) ? items : undefined;
}

/** The array a value's JSON text is, if it is one. */
function jsonArray(raw: string): unknown[] | undefined {
  if (!raw.trimStart().startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Sets a value at a path of a JSON object, making the objects on the way. */
export function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      const made: Record<string, unknown> = {};
      Object.defineProperty(node, key, { value: made, enumerable: true, writable: true, configurable: true });
      node = made;
    } else node = next as Record<string, unknown>;
  }
  Object.defineProperty(node, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true });
}
