import type { DetailLine, IndexEntry } from '../../api/api-index.js';
import { allowsObject, exampleCandidates, propertySchema } from '../../api/examples.js';
import { shellWord as quotedWord } from '../../util/login-command.js';
import type { FieldSpec, JsonSchema } from '../../api/operation-detail.js';
import { kebabCase } from '../../api/operations.js';
import { plainText, textBlocks, wrapWords } from '../../util/plain-text.js';
import { isPrintable, printable } from '../../util/printable.js';
import { type OperationFlag, pathArguments } from '../../api/operation-flags.js';
import { BUILTIN_FLAGS } from '../api-own-flags.js';

/** Server text for one line of help: markup reduced to its words, controls made visible, runs of space shrunk, cut to a length. */
export function line(text: string | undefined, max = 200): string {
  if (!text) return '';
  const words = textBlocks(text.slice(0, 4000))
    .map((b) => (b.kind === 'code' ? b.lines.join(' ') : b.kind === 'item' ? `${b.marker} ${b.text}` : b.text))
    .join(' ');
  const one = printable(words.replace(/\s+/g, ' ').trim());
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function typeLabel(field: FieldSpec): string {
  if (field.enum) return field.enum.map((v) => printable(String(v))).join('|');
  return field.type === 'json' ? 'json' : field.type;
}

/** A value from the description as a shell word: made printable, then quoted where a shell would read it. */
const shellWord = (text: string): string => quotedWord(printable(text));

/** The path parameters in the order the command takes them (see pathArguments): help's usage line and the command's reading of its arguments. */
function pathParams(entry: Pick<IndexEntry, 'path'>, detail: Pick<DetailLine, 'fields'>): FieldSpec[] {
  return pathArguments(entry.path, detail.fields);
}

export function placeholder(field: FieldSpec): string {
  return `<${field.name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40) || 'arg'}>`;
}

/** Whether a value passes a schema: the operation's own checks (commands/api/checks.ts), loaded by the caller. */
export type Accepts = (schema: JsonSchema, value: unknown) => boolean;

/** The schema a field's value is checked against, with the `$defs` its references point into. */
function schemaOf(detail: DetailLine, field: FieldSpec): { schema: unknown; root: JsonSchema } | undefined {
  if (field.location === 'body') {
    if (!detail.bodySchema) return undefined;
    const schema = propertySchema(detail.bodySchema, field.path ?? [field.name]);
    return schema === undefined ? undefined : { schema, root: detail.bodySchema };
  }
  const root = detail.paramSchemas[`${field.location}:${field.name}`];
  return root ? { schema: root, root } : undefined;
}

/** What a field's flag (or argument) is given for a value, one word per repetition; undefined when the flag could not say it. */
function wordsFor(field: FieldSpec, value: unknown): string[] | undefined {
  const values = field.array ? (Array.isArray(value) && value.length ? value : undefined) : [value];
  if (!values) return undefined;
  const words: string[] = [];
  for (const v of values) {
    let raw: string | undefined;
    if (field.type === 'string') raw = typeof v === 'string' ? v : undefined;
    else if (field.type === 'integer') raw = Number.isSafeInteger(v) ? String(v) : undefined;
    else if (field.type === 'number') raw = typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
    else if (field.type === 'boolean') raw = typeof v === 'boolean' ? String(v) : undefined;
    else if (typeof v === 'string') {
      // A JSON flag reads JSON first: a string that would parse as JSON is written as a JSON string.
      let parses = true;
      try {
        JSON.parse(v);
      } catch {
        parses = false;
      }
      raw = parses ? JSON.stringify(v) : v;
    } else raw = JSON.stringify(v);
    if (raw === undefined || !isPrintable(raw) || raw.length > 1000) return undefined;
    if (field.enum && !field.enum.some((allowed) => allowed === v)) return undefined;
    // A word starting with a dash would be read as a flag (a negative number aside).
    if (/^-(?!\d)/.test(raw)) return undefined;
    words.push(raw);
  }
  return words;
}

/** The words for a field's flag, and whether its own schema accepts the value they give (false: the best there was, refused). */
interface Example {
  words: string[];
  /** The value the words give, as the flag reads them. */
  value: unknown;
  accepted: boolean;
}

/** A value for a field that its checks accept, as words for its flag: from its schema's enum, default, example, format and bounds. */
function exampleWords(detail: DetailLine, field: FieldSpec, accepts: Accepts): Example | undefined {
  // A file field of a multipart body takes a file: `@path` names the person's own.
  if (field.location === 'body' && field.format === 'binary') return { words: [`@${kebabCase(field.name) || 'file'}.bin`], value: undefined, accepted: true };
  const found = schemaOf(detail, field);
  const word = field.location === 'path' ? `my-${kebabCase(field.name) || 'value'}` : undefined;
  const tries = found ? exampleCandidates(found.schema, found.root, { hint: field.name, ...(word ? { word } : {}) }) : [];
  if (field.enum) tries.push(...field.enum.filter((v) => v !== null));
  tries.push(fallbackValue(field, word));
  const shaped = tries.map((v) => (field.array && !Array.isArray(v) ? [v] : v));
  const usable = shaped.flatMap((v) => {
    const words = wordsFor(field, v);
    return words ? [{ v, words }] : [];
  });
  if (!found) return usable[0] && { words: usable[0].words, value: usable[0].v, accepted: true };
  const schema = withDefs(found.schema, found.root);
  const good = usable.find(({ v }) => accepts(schema, v));
  if (good) return { words: good.words, value: good.v, accepted: true };
  return usable[0] && { words: usable[0].words, value: usable[0].v, accepted: false };
}

/** A part of a bundled schema as a schema of its own: with the `$defs` its references point into. */
function withDefs(schema: unknown, root: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return { ...(root.$defs ? { $defs: root.$defs } : {}) };
  // The same part gives the same schema, so that a check of it is asked once (see remembered).
  let made = madeWithDefs.get(root);
  if (!made) madeWithDefs.set(root, (made = new WeakMap()));
  let out = made.get(schema);
  if (!out) made.set(schema, (out = { ...schema, ...(root.$defs ? { $defs: root.$defs } : {}) }));
  return out;
}

const madeWithDefs = new WeakMap<JsonSchema, WeakMap<object, JsonSchema>>();

/** A value of the field's type, for a field whose schema offers nothing better. */
function fallbackValue(field: FieldSpec, word: string | undefined): unknown {
  if (field.default !== undefined && field.default !== null) return field.default;
  if (field.type === 'integer') return 1;
  if (field.type === 'number') return 1.5;
  if (field.type === 'boolean') return true;
  if (field.type === 'json') return {};
  return word ?? 'text';
}

/** Sets a value at a path of a body being made, making the objects on the way (as the flags do). */
function placeAt(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = target;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) {
      Object.defineProperty(at, key, { value, enumerable: true, writable: true, configurable: true });
      return;
    }
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (typeof next !== 'object' || next === null || Array.isArray(next)) Object.defineProperty(at, key, { value: {}, enumerable: true, writable: true, configurable: true });
    at = at[key] as Record<string, unknown>;
  }
}

/** The paths of the leaves of a value made for a body: where flags would set it. */
function leafPaths(value: unknown, path: string[] = [], out: string[][] = []): string[][] {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length && path.length < 8) {
    for (const [k, v] of Object.entries(value)) leafPaths(v, [...path, k], out);
  } else if (path.length) out.push(path);
  return out;
}

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((p, i) => p === b[i]);

/**
 * The body flags an example gives: those setting what a body of the schema needs (its required
 * fields, nested ones included), and when the example needs one but the body asks for none, one
 * field near the body's top with what its objects need beside it, chosen so the body passes.
 */
function bodyFlagsShown(
  detail: DetailLine,
  flags: readonly OperationFlag[],
  options: {
    accepts: Accepts;
    needOne: boolean;
    example: (f: OperationFlag) => Example | undefined;
    /** Told the value a flag takes from a body the checks accepted whole. */
    fromSample: (f: OperationFlag, value: unknown) => void;
  },
): OperationFlag[] {
  const { accepts } = options;
  const body = flags.filter((f) => f.field.location === 'body');
  const root = detail.bodySchema;
  if (!body.length || !root) return body.filter((f) => f.field.required);
  const flagAt = (path: readonly string[]) => body.find((f) => samePath(f.field.path ?? [f.field.name], path));
  // A flag for a whole object (deeper than dotted flags go) sets every leaf under it.
  const flagOver = (path: readonly string[]) => flagAt(path) ?? body.find((f) => (f.field.path ?? []).every((p, i) => p === path[i]));
  // A body the checks accept; else the one made from the schema's own structure (its required fields), made last.
  const candidates = exampleCandidates(root, root);
  const passing = candidates.find((v) => accepts(root, v));
  const sample = passing ?? candidates[candidates.length - 1];
  const shown = new Set<OperationFlag>(body.filter((f) => f.field.required));
  // Each place the body needs filled: its flag; or, for an object no flag sets whole, the first of
  // its fields with what each object on the way to it needs beside it (an object comes whole).
  const pending = leafPaths(sample);
  const covered = new Set<string>();
  const cover = (first: OperationFlag) => {
    shown.add(first);
    const path = first.field.path ?? [first.field.name];
    for (let depth = 1; depth < path.length; depth++) {
      const parent = path.slice(0, depth);
      // The first candidate: the one that plainly fits its schema, when one does (a check each would cost more than it finds).
      const around = exampleCandidates(propertySchema(root, parent), root)[0];
      for (const leaf of leafPaths(around)) pending.push([...parent, ...leaf]);
    }
  };
  let n = 0;
  // The places of the accepted body: their flags take its values, which the checks accepted together.
  const start = pending.length;
  const drain = () => {
    for (; n < pending.length && n < 200; n++) {
      const path = pending[n];
      const key = path.join('\u0000');
      if (covered.has(key)) continue;
      covered.add(key);
      const f = flagOver(path);
      const inside = f ? undefined : body.find((b) => path.every((p, i) => (b.field.path ?? [])[i] === p));
      if (f && passing !== undefined && n < start) options.fromSample(f, valueAt(passing, f.field.path ?? [f.field.name]));
      if (f) shown.add(f);
      else if (inside) cover(inside);
    }
  };
  drain();
  if (shown.size === 0 && options.needOne) {
    // The one flag shown to say how they go: the nearest the body's top (a plain value before a JSON one), with what its objects need.
    const depth = (f: OperationFlag) => (f.field.path?.length ?? 1) * 2 + (f.field.type === 'json' ? 1 : 0);
    const nearest = [...body].sort((a, b) => depth(a) - depth(b));
    // Of the nearest few, the first that makes a body the checks accept (a description may ask what no value meets,
    // or refuse a field its own properties name, as `additionalProperties` beside an `allOf` does); else the nearest.
    const before = { pending: pending.length, n, covered: [...covered] };
    for (const f of nearest.slice(0, 8)) {
      cover(f);
      drain();
      if (accepts(root, bodyOf([...shown], options.example))) return body.filter((b) => shown.has(b));
      shown.clear();
      pending.length = before.pending;
      n = before.n;
      covered.clear();
      for (const key of before.covered) covered.add(key);
    }
    cover(nearest[0]);
    drain();
  }
  return body.filter((f) => shown.has(f));
}

/** A check that answers a question asked before from memory: each check makes a validator of its schema, which costs. */
function remembered(accepts: Accepts): Accepts {
  const ids = new WeakMap<object, number>();
  const answers = new Map<string, boolean>();
  let count = 0;
  return (schema, value) => {
    let id = ids.get(schema);
    if (id === undefined) ids.set(schema, (id = ++count));
    const key = `${id}\u0000${JSON.stringify(value)}`;
    let answer = answers.get(key);
    if (answer === undefined) answers.set(key, (answer = accepts(schema, value)));
    return answer;
  };
}

/** The value at a path of a value made for a body. */
function valueAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) at = typeof at === 'object' && at !== null && Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

/** The body the flags' example values make, as the flags would set it. */
function bodyOf(flags: readonly OperationFlag[], example: (f: OperationFlag) => Example | undefined): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of flags) {
    const value = example(f)?.value;
    if (f.field.location === 'body' && value !== undefined) placeAt(body, f.field.path ?? [f.field.name], value);
  }
  return body;
}

/**
 * The example line of an operation, as shell words after `school api <name>`: its path arguments
 * in the order taken, each flag the request needs with a value its checks accept (or, when it
 * needs none, one flag to show how they go). Help and the skill show it.
 */
export function exampleArguments(entry: IndexEntry, detail: DetailLine, flags: readonly OperationFlag[], checks: Accepts): string[] {
  const accepts = remembered(checks);
  const words: string[] = [];
  for (const p of pathParams(entry, detail)) words.push(shellWord(exampleWords(detail, p, accepts)?.words[0] ?? placeholder(p)));
  const made = new Map<OperationFlag, Example | undefined>();
  const example = (f: OperationFlag) => {
    if (!made.has(f)) made.set(f, exampleWords(detail, f.field, accepts));
    return made.get(f);
  };
  const needed = flags.filter((f) => f.field.location !== 'body' && f.field.required);
  // Flags whose values come from a body the checks accepted whole: together they need no check again.
  const sampled = new Set<OperationFlag>();
  const fromSample = (f: OperationFlag, value: unknown) => {
    // A file field takes the person's own file, whatever the sample holds.
    if (f.field.format === 'binary') return;
    const shaped = f.field.array && !Array.isArray(value) ? [value] : value;
    const words = value === undefined ? undefined : wordsFor(f.field, shaped);
    if (!words || made.has(f)) return;
    made.set(f, { words, value: shaped, accepted: true });
    sampled.add(f);
  };
  const bodyShown = bodyFlagsShown(detail, flags, { accepts, needOne: Boolean(entry.body?.required) || !needed.length, example, fromSample });
  // A body that is not an object (an array, say) is not made of field flags: it comes from a file.
  const byFile = Boolean(entry.body && detail.bodySchema && !allowsObject(detail.bodySchema));
  let shown = flags.filter((f) => (f.field.location === 'body' ? bodyShown.includes(f) && !byFile : f.field.required));
  // A body the checks refuse as a whole: the optional fields whose own value is refused are left out (no value of
  // theirs was found that the description's checks accept; an example a person copies should not fail on them).
  const root = detail.bodySchema;
  const inBody = shown.filter((f) => f.field.location === 'body');
  if (root && detail.bodyIsObject && inBody.length && !inBody.every((f) => sampled.has(f))) {
    if (!accepts(root, bodyOf(inBody, example))) shown = shown.filter((f) => f.field.location !== 'body' || f.field.required || example(f)?.accepted !== false);
  }
  if (!shown.length) {
    // One flag to show how they go: the first whose value its checks accept.
    const first = flags.slice(0, 8).find((f) => example(f)?.accepted && !(byFile && f.field.location === 'body'));
    if (first) shown = [first];
  }
  for (const f of shown) {
    const values = example(f)?.words;
    if (!values) continue;
    // A switch given `true` reads best as the flag alone.
    if (f.field.type === 'boolean' && !f.field.array && values[0] === 'true') words.push(`--${f.flag}`);
    else for (const v of values) words.push(`--${f.flag}`, shellWord(v));
  }
  // A body only a file can give (no field flags for it): the example says where it goes.
  if ((entry.body?.required && !flags.some((f) => f.field.location === 'body')) || byFile) words.push('--input', 'body.json');
  return words;
}

function describeScopes(entry: Pick<IndexEntry, 'scopeSets' | 'anonymous'>): string {
  const alternatives = entry.scopeSets.filter((s) => s.length).map((s) => s.map(printable).join(' and '));
  if (!alternatives.length) return entry.anonymous ? 'none (anonymous callers allowed)' : 'a token, no particular scope';
  return `${alternatives.join(', or ')}${entry.anonymous ? ' (anonymous callers allowed: send with --anonymous)' : ''}`;
}

/** `school api <operation> --help`. */
export function operationHelp(entry: IndexEntry, detail: DetailLine, flags: readonly OperationFlag[], options: { width: number; accepts: Accepts }): string {
  const out: string[] = [];
  const name = entry.command;
  out.push(`${name}: ${line(entry.summary) || `${entry.method} ${line(entry.path)}`}${entry.deprecated ? ' (deprecated)' : ''}`);
  if (detail.description) out.push('', plainText(detail.description, { width: options.width, indent: '  ', maxLines: 60 }));
  out.push('', `Request: ${entry.method} ${line(entry.path, 300)}`, `Scopes:  ${describeScopes(entry)}`);
  const positional = pathParams(entry, detail);
  out.push('', 'Usage:', `  school api ${name}${positional.map((p) => ` ${placeholder(p)}`).join('')} [flags]`);
  if (positional.length) {
    out.push('', 'Arguments:');
    for (const p of positional) {
      const text = wrapWords(`${typeLabel(p)}, required${p.description ? `. ${line(p.description, 300)}` : ''}`, Math.max(30, options.width - 27));
      out.push(`  ${placeholder(p).padEnd(24)} ${text[0]}`, ...text.slice(1).map((l) => `${' '.repeat(27)}${l}`));
    }
  }
  const rows = flags.map((f) => {
    const left = `--${f.flag} <${typeLabel(f.field).slice(0, 60)}>${f.field.array ? '...' : ''}`;
    const notes = [
      f.field.location === 'body' ? 'body' : f.field.location,
      f.field.required ? 'required' : '',
      f.field.array ? 'repeatable' : '',
      f.field.nullable ? 'null allowed' : '',
      f.field.default !== undefined ? `default ${line(JSON.stringify(f.field.default), 40)}` : '',
      f.field.format ? `format ${line(f.field.format, 30)}` : '',
      f.field.limits ? line(f.field.limits, 80) : '',
      f.field.deprecated ? 'deprecated' : '',
    ].filter(Boolean);
    const text = [`(${notes.join(', ')})`, line(f.field.description, 160), f.renamed ? `Renamed: ${f.renamed}.` : ''].filter(Boolean).join(' ');
    return [left, text] as const;
  });
  if (rows.length) {
    const width = Math.min(34, Math.max(...rows.map(([l]) => l.length)));
    out.push('', 'Flags:');
    // The text column wrapped to the width; a long flag name stands on a line of its own above it.
    const pad = ' '.repeat(width + 4);
    for (const [left, text] of rows) {
      const wrapped = wrapWords(text, Math.max(30, options.width - pad.length));
      const first = left.length > width ? [`  ${left}`, `${pad}${wrapped[0] ?? ''}`] : [`  ${left.padEnd(width)}  ${wrapped[0] ?? ''}`];
      out.push(...first.map((l) => l.trimEnd()), ...wrapped.slice(1).map((l) => `${pad}${l}`));
    }
  }
  if (entry.body) {
    const kind = `${line(detail.request.media.map((m) => m.type).join(', '), 120)}${entry.body.required ? ', required' : ''}`;
    out.push('', 'Body:', ...wrapWords(`${kind}: ${bodyWays(detail, flags)}`, options.width - 2).map((l) => `  ${l}`));
  }
  const example = [`school api ${name}`, ...exampleArguments(entry, detail, flags, options.accepts)];
  out.push('', 'Example:', `  ${example.join(' ')}`, `  ${example.join(' ')} --dry-run`);
  out.push(
    '',
    'Flags of every operation:',
    '  --dry-run, --no-validate, --anonymous, --input <file|->,',
    '  --content-type <type>, --format json|table, --columns <a,b,c>, --jq <expr>,',
    '  --paginate, --slurp, -i/--include, --timeout <s>, --retry <n>, --refresh',
    '  (school api --help says what each does)',
  );
  return `${out.join('\n')}\n`;
}

/** How the body is given: from fields (flags, a file field from @path) or --input, or from --input byte for byte. */
function bodyWays(detail: DetailLine, flags: readonly OperationFlag[]): string {
  const [first] = detail.request.media;
  const others = detail.request.media.length > 1 ? '; --content-type <type> sends another than the first' : '';
  if (first?.kind === 'raw') return `from --input <file|->, sent byte for byte${others}`;
  const files = first?.kind === 'multipart' && flags.some((f) => f.field.location === 'body' && f.field.format === 'binary');
  return `${detail.bodyIsObject ? 'from the flags above, ' : ''}or the whole of it from --input <file|-> (flags override its values)${files ? '; a file field takes @path, or @- for standard input' : ''}${others}`;
}

const VALUE_NAMES: Record<string, string> = { input: 'file|-', format: 'json|table', columns: 'a,b,c', jq: 'expression', timeout: 'seconds', retry: 'n' };

/** `school api --help`. */
export function apiHelp(): string {
  const rows = Object.entries(BUILTIN_FLAGS)
    .filter(([name]) => !['base-url', 'profile', 'json', 'verbose'].includes(name))
    .map(([name, f]) => [`${f.short ? `-${f.short}, ` : ''}--${name}${f.value ? ` <${VALUE_NAMES[name] ?? 'value'}>` : ''}`, f.help] as const);
  const width = Math.max(...rows.map(([l]) => l.length));
  return [
    'Usage: school api [<operation> [<path-arg>...] [flags]]',
    '',
    "The API's operations as commands, from the description the server publishes (/openapi.json).",
    'Without an operation: every operation, by area, with the scopes it needs (--json: an array).',
    'Each operation takes its path parameters as arguments, in order, and its query and header',
    'parameters and body fields as flags (--title Algebra --seats 30; nested: --address.city Paris;',
    'arrays: repeat the flag). The request is checked against the description before it is sent.',
    '',
    'Options:',
    ...rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`),
    '',
    'Global options: --base-url <url>, --profile <name>, --json, --verbose',
    '',
    'The description is cached per base URL and used while fresh (its Cache-Control max-age, else',
    '24 hours), then revalidated; when the server cannot be reached the cached copy is used.',
    '',
    'Examples:',
    '  school api',
    '  school api list-courses --format table',
    '  school api create-course --help',
    '  school api create-course --title Algebra --seats 30 --dry-run',
    '  school api get-course c-101 --jq .title',
    '',
  ].join('\n');
}
