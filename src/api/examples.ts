/**
 * Example values made from a schema, for help's example line and the skill's: a value the
 * operation's checks accept (its enum, default, example, format, bounds), so an example a person
 * copies is sent rather than refused. Pure, and bounded: a schema from a server may loop or nest
 * without end. Each candidate is a guess; the caller keeps the first its checks accept.
 */
import type { JsonSchema } from './operation-detail.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How deep a schema is followed for an example: deeper parts take the simplest value of their type. */
const MAX_DEPTH = 8;
/** How many candidates one schema yields at most. */
const MAX_CANDIDATES = 8;

/** Strings tried against a `pattern` with no example of its own; the first it matches is used. */
const PATTERN_TRIES = ['text', 'example', 'abc', 'a', 'A', 'ABC', '1', '123', 'a1', 'abc-123', 'abc_123', 'en', 'EN', 'en-US', '2030-01-01', 'Example-2030'];

/** A value of each format, the plainest first; a longer form where the schema asks for a length. */
const FORMATS: Record<string, string | string[]> = {
  'date-time': ['2030-01-01T09:00:00Z', '2030-01-01T09:00:00+00:00', '2030-01-01T09:00:00.000+00:00'],
  date: '2030-01-01',
  time: '09:00:00Z',
  email: 'ada@example.edu',
  'idn-email': 'ada@example.edu',
  uri: 'https://example.edu/',
  url: 'https://example.edu/',
  'uri-reference': 'https://example.edu/',
  iri: 'https://example.edu/',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'example.edu',
  'idn-hostname': 'example.edu',
  byte: 'dGV4dA==',
  duration: 'P1D',
};

/** A value an example can show: a string of a line, or a structure of a few lines once written as JSON. */
function showable(value: unknown): boolean {
  if (value === undefined) return false;
  const text = JSON.stringify(value);
  return text !== undefined && text.length <= (typeof value === 'object' && value !== null ? 4000 : 200);
}

interface Context {
  root: JsonSchema;
  /** A word the value is for (a parameter's or field's name), for a friendlier string. */
  hint: string;
  /** The string to try first where the schema says nothing more of it. */
  word?: string;
  /** A form of a oneOf or anyOf: its object sets what tells it from the others (a property of one value) too. */
  branch?: boolean;
}

function follow(ctx: Context, node: unknown, seen: Set<string>): Record<string, unknown> | undefined {
  let current = node;
  while (isObject(current) && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (seen.has(ref) || !ref.startsWith('#/$defs/')) return undefined;
    seen.add(ref);
    const defs = ctx.root.$defs;
    current = isObject(defs) ? defs[ref.slice('#/$defs/'.length)] : undefined;
  }
  if (current === true) return {};
  return isObject(current) ? current : undefined;
}

/** `allOf` members merged into one schema: properties and required joined, the first word on anything else. */
function merged(ctx: Context, schema: Record<string, unknown>, seen: Set<string>, depth: number): Record<string, unknown> {
  if (!Array.isArray(schema.allOf) || depth > MAX_DEPTH) return schema;
  const out: Record<string, unknown> = { ...schema };
  delete out.allOf;
  const properties: Record<string, unknown> = isObject(schema.properties) ? { ...schema.properties } : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const member of schema.allOf) {
    const part = follow(ctx, member, new Set(seen));
    if (!part) continue;
    const flat = merged(ctx, part, seen, depth + 1);
    for (const [k, v] of Object.entries(flat)) if (!(k in out) && k !== 'properties' && k !== 'required') out[k] = v;
    if (isObject(flat.properties)) Object.assign(properties, flat.properties);
    if (Array.isArray(flat.required)) for (const r of flat.required) required.add(r);
  }
  if (Object.keys(properties).length) out.properties = properties;
  if (required.size) out.required = [...required];
  return out;
}

function typesOf(schema: Record<string, unknown>): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  if (isObject(schema.properties)) return ['object'];
  if (schema.items !== undefined) return ['array'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function numberIn(schema: Record<string, unknown>, integer: boolean, hint: string): number {
  let low = num(schema.minimum) ?? (num(schema.exclusiveMinimum) !== undefined ? num(schema.exclusiveMinimum)! + (integer ? 1 : 0.5) : undefined);
  const high = num(schema.maximum) ?? (num(schema.exclusiveMaximum) !== undefined ? num(schema.exclusiveMaximum)! - (integer ? 1 : 0.5) : undefined);
  const wanted = integer ? (/seat|count|size|limit|capacity|per.?page/i.test(hint) ? 30 : 1) : 1.5;
  if (integer && low !== undefined) low = Math.ceil(low);
  let value = Math.max(low ?? wanted, Math.min(high ?? wanted, wanted));
  if (high !== undefined && value > high) value = high;
  const step = num(schema.multipleOf);
  if (step && step > 0) value = Math.ceil((low ?? value) / step) * step;
  return integer ? Math.round(value) : value;
}

function stringFor(schema: Record<string, unknown>, hint: string, word?: string): string | undefined {
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength) ?? Number.POSITIVE_INFINITY;
  const fits = (s: string) => [...s].length >= min && [...s].length <= max;
  const known = typeof schema.format === 'string' && Object.hasOwn(FORMATS, schema.format) ? FORMATS[schema.format] : undefined;
  const forms = known === undefined ? [] : typeof known === 'string' ? [known] : known;
  // A value of the format that fits the lengths: padding or cutting one would break the format.
  const format = forms.find(fits) ?? forms[0];
  const friendly = word ?? (/email/i.test(hint) ? 'ada@example.edu' : /title|name/i.test(hint) ? 'Algebra' : 'text');
  if (typeof schema.pattern === 'string') {
    let re: RegExp;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {
      return undefined;
    }
    // A format's value in the case the pattern writes it (`[0-9A-F]` for a uuid), before samples of the pattern alone.
    const cased = forms.flatMap((f) => [f, f.toUpperCase(), f.toLowerCase()]);
    const samples = [patternSample(schema.pattern), patternSample(schema.pattern, min), patternSample(schema.pattern, min, true)];
    // A pattern not anchored at its end matches a sample with more after it: the way to a length it asks.
    for (const sample of samples.slice(1)) if (sample !== undefined && [...sample].length < min) samples.push(sample + 'x'.repeat(min - [...sample].length));
    return [...cased, friendly, ...PATTERN_TRIES, ...samples].find((s): s is string => s !== undefined && re.test(s) && fits(s));
  }
  // Only a link stays what its format says once padded (its path grows); another format's value is shown as it is.
  if (format !== undefined && !fits(format) && !/^(uri|url|iri)/.test(String(schema.format))) return format;
  const base = format ?? friendly;
  if (fits(base)) return base;
  if ([...base].length > max) return base.slice(0, Math.max(max, 0));
  return base.padEnd(min, 'x');
}

/** Characters tried for a class (`[a-z0-9-]`, `[^/]`, `\\d`): the first it matches is used. */
const CLASS_TRIES = 'a1A_-.x0Z9 :/@';

/** Letters and digits before the other printable characters: a sample reads as a word, and a word starting with a dash would be a flag. */
const WORDLY = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

/** A class like `[a-z0-9-]`, `[^/]` or `\\d`: one character it matches, preferring a letter or digit. */
function classChar(source: string): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(`^${source}$`, 'u');
  } catch {
    return undefined;
  }
  return [...CLASS_TRIES.slice(0, 3), ...WORDLY, ...CLASS_TRIES, ...PRINTABLE].find((c) => re.test(c));
}

/** Every printable ASCII character, for a class none of CLASS_TRIES is in (`[is]`). */
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));

/** What an escape stands for: a character, a class's character, or nothing (`\\b`, a boundary, takes no place). */
function escaped(pattern: string, at: number): { text: string | undefined; length: number } {
  const next = pattern[at + 1];
  if (next === undefined) return { text: undefined, length: 1 };
  if (next === 'b' || next === 'B') return { text: '', length: 2 };
  if (/[dwsDWS]/.test(next)) return { text: classChar(`\\${next}`), length: 2 };
  const controls: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' };
  if (Object.hasOwn(controls, next)) return { text: controls[next], length: 2 };
  const hex = /^u([0-9a-fA-F]{4})|^x([0-9a-fA-F]{2})/.exec(pattern.slice(at + 1));
  if (hex) return { text: String.fromCharCode(Number.parseInt(hex[1] ?? hex[2], 16)), length: 1 + hex[0].length };
  if (/[pPkcu0-9]/.test(next)) return { text: undefined, length: 2 };
  return { text: next, length: 2 };
}

/**
 * A string a simple regular expression matches: anchors, literals, classes, groups (the first
 * alternative), and quantifiers at their least (one for `+`). Undefined for what it cannot read;
 * the caller tests the result against the pattern either way.
 */
function patternSample(pattern: string, minLength = 0, generous = false): string | undefined {
  let out = '';
  let i = 0;
  // Where the last piece that may repeat without end stands, to grow the sample to minLength there.
  let growable: { at: number; piece: string } | undefined;
  const atom = (): string | undefined => {
    const c = pattern[i];
    if (c === '\\') {
      const { text, length } = escaped(pattern, i);
      i += length;
      return text;
    }
    if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return undefined;
      const body = pattern.slice(i, end + 1);
      i = end + 1;
      return classChar(body);
    }
    if (c === '(') {
      let depth = 0;
      let j = i;
      for (; j < pattern.length; j++) {
        if (pattern[j] === '\\') j++;
        else if (pattern[j] === '(') depth++;
        else if (pattern[j] === ')' && --depth === 0) break;
      }
      const whole = pattern.slice(i + 1, j);
      i = j + 1;
      // A lookahead or lookbehind takes no place; the sample is tested against the whole pattern after.
      if (/^\?<?[=!]/.test(whole)) return '';
      const inner = whole.replace(/^\?(?::|<[A-Za-z]\w*>)/, '');
      // The first alternative at the group's own level.
      let level = 0;
      let cut = inner.length;
      for (let k = 0; k < inner.length; k++) {
        if (inner[k] === '\\') k++;
        else if (inner[k] === '(' || inner[k] === '[') level++;
        else if (inner[k] === ')' || inner[k] === ']') level--;
        else if (inner[k] === '|' && level === 0) {
          cut = k;
          break;
        }
      }
      return patternSample(inner.slice(0, cut), 0, generous);
    }
    if (c === '.') {
      i++;
      return 'a';
    }
    if ('*+?{|)'.includes(c)) return undefined;
    i++;
    return c;
  };
  if (pattern.startsWith('^')) i = 1;
  let guard = 0;
  while (i < pattern.length && guard++ < 200) {
    if (pattern[i] === '$' && (i === pattern.length - 1 || pattern[i + 1] === '|')) break;
    if (pattern[i] === '|') break; // the first alternative of the whole pattern
    const piece = atom();
    if (piece === undefined) return undefined;
    let times = 1;
    let unbounded = false;
    const q = pattern[i];
    if (q === '*' || q === '?') {
      // Generous: each optional part once, for a sample that must be long.
      times = generous ? 1 : 0;
      unbounded = q === '*';
      i++;
    } else if (q === '+') {
      unbounded = true;
      i++;
    } else if (q === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i));
      if (!m) return undefined;
      // Generous: a bounded repetition at its most (a long sample), else at its least.
      times = generous && m[2] && Number(m[2]) <= 64 ? Number(m[2]) : Number(m[1]);
      unbounded = m[2] === '';
      i += m[0].length;
    }
    if (pattern[i] === '?' || pattern[i] === '+') i++; // lazy or possessive
    if (times > 100) return undefined;
    out += piece.repeat(times);
    if (unbounded && piece) growable = { at: out.length, piece };
  }
  if (out.length < minLength && growable) {
    const more = Math.ceil((minLength - out.length) / growable.piece.length);
    if (more > 200) return undefined;
    out = `${out.slice(0, growable.at)}${growable.piece.repeat(more)}${out.slice(growable.at)}`;
  }
  return out;
}

/** Candidate values for a schema, the likeliest to be accepted first. */
function candidates(ctx: Context, node: unknown, depth: number, seen: Set<string>): unknown[] {
  const found = follow(ctx, node, seen);
  if (!found) return [];
  const schema = merged(ctx, found, seen, depth);
  const out: unknown[] = [];
  const add = (v: unknown) => {
    if (showable(v) && !out.some((o) => JSON.stringify(o) === JSON.stringify(v))) out.push(v);
  };
  if ('const' in schema) add(schema.const);
  if (Array.isArray(schema.enum)) for (const v of schema.enum.slice(0, 3)) if (v !== null) add(v);
  if (schema.default !== undefined && schema.default !== null) add(schema.default);
  if (schema.example !== undefined && schema.example !== null) add(schema.example);
  if (Array.isArray(schema.examples)) for (const v of schema.examples.slice(0, 2)) if (v !== null) add(v);
  if (depth > MAX_DEPTH) return out;
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches.slice(0, 6)) for (const v of candidates({ ...ctx, branch: true }, branch, depth + 1, new Set(seen))) add(v);
  }
  const types = typesOf(schema);
  for (const type of types.filter((t) => t !== 'null')) {
    if (type === 'string') {
      const s = stringFor(schema, ctx.hint, ctx.word);
      if (s !== undefined) add(s);
    } else if (type === 'integer' || type === 'number') add(numberIn(schema, type === 'integer', ctx.hint));
    else if (type === 'boolean') add(true);
    else if (type === 'array') {
      const items = candidates({ ...ctx }, schema.items ?? {}, depth + 1, new Set(seen));
      const length = Math.max(1, Math.min(num(schema.minItems) ?? 1, 20));
      add(schema.uniqueItems === true ? distinctItems(items, length) : Array.from({ length }, () => items[0] ?? 'text'));
    } else if (type === 'object') add(objectFor(ctx, schema, depth, seen));
  }
  if (!types.length && !out.length && !schema.oneOf && !schema.anyOf && !schema.not) add(stringFor(schema, ctx.hint, ctx.word) ?? 'text');
  if (types.includes('null') && !out.length) add(null);
  // What plainly fits first (a description's own example may be of another type than its schema says); the checks decide.
  const fitting = out.filter((v) => fits(ctx, schema, v, depth, seen));
  return [...fitting, ...out.filter((v) => !fitting.includes(v))].slice(0, MAX_CANDIDATES);
}

/** The plain shape of a value of some formats, for ordering candidates (a description's own example may not have it). */
const FORMAT_SHAPES: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  'date-time': /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/,
  date: /^\d{4}-\d\d-\d\d$/,
  email: /^[\w.+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/,
  ipv4: /^(\d{1,3}\.){3}\d{1,3}$/,
};

const sameValue = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

function typeFits(type: string, value: unknown): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'number') return typeof value === 'number';
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isObject(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

/**
 * Whether a value plainly fits a schema: its type, enum and const, a string's lengths and pattern,
 * a number's bounds, an array's items and their uniqueness, an object's required and allowed
 * properties, and how many of a oneOf's forms it fits (exactly one). A quick test to order
 * candidates, a few levels deep; the operation's own checks have the last word.
 */
function fits(ctx: Context, node: unknown, value: unknown, depth: number, seen: Set<string>): boolean {
  if (depth > MAX_DEPTH + 4) return true;
  const schema = follow(ctx, node, new Set(seen));
  if (!schema) return true;
  if (Array.isArray(schema.allOf) && !schema.allOf.every((m) => fits(ctx, m, value, depth + 1, seen))) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((m) => fits(ctx, m, value, depth + 1, seen))) return false;
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((m) => fits(ctx, m, value, depth + 1, seen)).length !== 1) return false;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  if (types.length && !types.some((t) => typeFits(String(t), value))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameValue(e, value))) return false;
  if ('const' in schema && !sameValue(schema.const, value)) return false;
  if (typeof value === 'string') {
    const length = [...value].length;
    if (length < (num(schema.minLength) ?? 0) || length > (num(schema.maxLength) ?? Number.POSITIVE_INFINITY)) return false;
    const shape = typeof schema.format === 'string' && Object.hasOwn(FORMAT_SHAPES, schema.format) ? FORMAT_SHAPES[schema.format] : undefined;
    if (shape && !shape.test(value)) return false;
    if (typeof schema.pattern === 'string') {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value)) return false;
      } catch {
        return false;
      }
    }
  } else if (typeof value === 'number') {
    const [min, max] = [num(schema.minimum), num(schema.maximum)];
    const [above, below] = [num(schema.exclusiveMinimum), num(schema.exclusiveMaximum)];
    if ((min !== undefined && value < min) || (max !== undefined && value > max)) return false;
    if ((above !== undefined && value <= above) || (below !== undefined && value >= below)) return false;
  } else if (Array.isArray(value)) {
    if (value.length < (num(schema.minItems) ?? 0) || value.length > (num(schema.maxItems) ?? Number.POSITIVE_INFINITY)) return false;
    if (schema.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return false;
    if (schema.items !== undefined && !value.slice(0, 3).every((v) => fits(ctx, schema.items, v, depth + 1, seen))) return false;
  } else if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required) && !schema.required.every((r) => typeof r !== 'string' || Object.hasOwn(value, r))) return false;
    for (const [key, v] of Object.entries(value).slice(0, 30)) {
      if (Object.hasOwn(properties, key)) {
        if (!fits(ctx, properties[key], v, depth + 1, seen)) return false;
      } else if (schema.additionalProperties === false) return false;
      else if (isObject(schema.additionalProperties) && !fits(ctx, schema.additionalProperties, v, depth + 1, seen)) return false;
    }
  }
  return true;
}

/** `length` items no two alike, for `uniqueItems`: the item candidates in turn, then numbers counted up or words numbered. */
function distinctItems(items: readonly unknown[], length: number): unknown[] {
  const out = items.slice(0, length);
  const first = items[0] ?? 'text';
  for (let k = 1; out.length < length; k++) {
    const next = typeof first === 'number' ? first + k : typeof first === 'string' ? `${first}${k}` : undefined;
    if (next === undefined || out.some((o) => sameValue(o, next))) {
      if (next === undefined) break;
      continue;
    }
    out.push(next);
  }
  return out;
}

function objectFor(ctx: Context, schema: Record<string, unknown>, depth: number, seen: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  const set = (name: string, schema: unknown) => {
    const value = candidates({ root: ctx.root, hint: name }, schema ?? {}, depth + 1, new Set(seen))[0];
    Object.defineProperty(out, name, { value: value ?? 'text', enumerable: true, writable: true, configurable: true });
  };
  for (const name of required.slice(0, 20)) if (name !== '__proto__') set(name, properties[name]);
  // A form's own mark (`type: "circle"`, a const or an enum of one), so the value fits that form alone.
  if (ctx.branch) {
    for (const [name, property] of Object.entries(properties).slice(0, 50)) {
      const one = follow(ctx, property, new Set(seen));
      if (name in out || name === '__proto__' || !one) continue;
      if ('const' in one || (Array.isArray(one.enum) && one.enum.length === 1)) set(name, property);
    }
  }
  // minProperties beyond the required ones: the first other properties, else names of our own.
  const least = Math.min(num(schema.minProperties) ?? 0, 10);
  for (const name of Object.keys(properties)) if (Object.keys(out).length < least && !(name in out) && name !== '__proto__') set(name, properties[name]);
  const extra = schema.additionalProperties === false ? undefined : isObject(schema.additionalProperties) ? schema.additionalProperties : {};
  for (let n = 1; extra && Object.keys(out).length < least; n++) set(`key${n}`, extra);
  return out;
}

/**
 * Values a schema likely accepts, best first (at most a few). `root` is the bundled schema the
 * `$ref`s point into (its `$defs`); `hint` a name that picks friendlier words, `word` the string to
 * try where the schema asks nothing more of one.
 */
export function exampleCandidates(schema: unknown, root: JsonSchema, options: { hint?: string; word?: string } = {}): unknown[] {
  return candidates({ root, hint: options.hint ?? '', ...(options.word ? { word: options.word } : {}) }, schema, 0, new Set());
}

/** Whether a bundled schema's own `type` (through its `$ref`s) lets its value be an object, as a body made of field flags is. */
export function allowsObject(root: JsonSchema): boolean {
  const schema = follow({ root, hint: '' }, root, new Set());
  if (!schema) return true;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  return !types || types.includes('object');
}

/**
 * The schema of a body field at `path` within a bundled body schema: each step through
 * `properties`, following `$ref`s and `allOf`, `oneOf` and `anyOf` members; undefined where no
 * member names the property.
 */
export function propertySchema(root: JsonSchema, path: readonly string[]): unknown {
  const ctx: Context = { root, hint: '' };
  let node: unknown = root;
  for (const key of path) {
    node = propertyOf(ctx, node, key, 0);
    if (node === undefined) return undefined;
  }
  return node;
}

function propertyOf(ctx: Context, node: unknown, key: string, depth: number): unknown {
  const schema = follow(ctx, node, new Set());
  if (!schema || depth > MAX_DEPTH) return undefined;
  if (isObject(schema.properties) && Object.hasOwn(schema.properties, key)) return schema.properties[key];
  for (const group of ['allOf', 'oneOf', 'anyOf'] as const) {
    const members = schema[group];
    if (!Array.isArray(members)) continue;
    for (const member of members) {
      const found = propertyOf(ctx, member, key, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
