/**
 * The request checked against the operation's JSON Schemas before anything is sent. The validator
 * is @cfworker/json-schema: it interprets a schema rather than compiling it to code, so a
 * description from a server never becomes code that runs, and it loads in a few milliseconds
 * (loaded here only, and only when there is something to check).
 */
import type { JsonSchema } from '../../api/operation-detail.js';
import { jsonType } from '../../util/json.js';
import { printable } from '../../util/printable.js';
import { requireCommonJs } from '../../util/require.js';

interface OutputUnit {
  keyword: string;
  keywordLocation: string;
  instanceLocation: string;
  error: string;
}

type ValidatorModule = typeof import('@cfworker/json-schema');

// The build's one-file copy of the validator beside dist/cli.cjs (see scripts/build.mjs), or
// undefined when the sources run unbuilt and require the package itself.
declare const __SCHOOL_VALIDATOR_BUNDLE__: string;
const VALIDATOR_BUNDLE: string | undefined = typeof __SCHOOL_VALIDATOR_BUNDLE__ === 'undefined' ? undefined : __SCHOOL_VALIDATOR_BUNDLE__;

let validatorModule: ValidatorModule | undefined;
function loadValidator(): ValidatorModule {
  validatorModule ??= requireCommonJs(VALIDATOR_BUNDLE ?? '@cfworker/json-schema') as ValidatorModule;
  return validatorModule;
}

/** Keywords whose errors only say that something inside failed: the inner error says what. */
const WRAPPERS = new Set(['properties', '$ref', 'items', 'prefixItems', 'allOf', 'false', 'dependentSchemas', 'unevaluatedItems', 'unevaluatedProperties', 'additionalItems', 'patternProperties']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return s;
  }
}

function pointerSegments(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map(decodeSegment);
}

/** The value at a validator's keyword location, `$ref`s followed within the bundled schema. */
function keywordValue(root: JsonSchema, location: string): { value: unknown; schema: unknown } {
  let node: unknown = root;
  let parent: unknown = root;
  for (const seg of pointerSegments(location)) {
    if (seg === '$ref' && isObject(node) && typeof node.$ref === 'string') {
      node = pointerSegments(node.$ref).reduce<unknown>((n, s) => (isObject(n) ? n[s] : Array.isArray(n) ? n[Number(s)] : undefined), root);
      continue;
    }
    parent = node;
    node = isObject(node) ? node[seg] : Array.isArray(node) ? node[Number(seg)] : undefined;
  }
  return { value: node, schema: parent };
}

const show = (v: unknown) => printable(JSON.stringify(v) ?? String(v)).slice(0, 120);

function instanceAt(value: unknown, location: string): unknown {
  return pointerSegments(location).reduce<unknown>((n, s) => (isObject(n) ? n[s] : Array.isArray(n) ? n[Number(s)] : undefined), value);
}

/** "a, b, or c". */
function orList(items: readonly string[]): string {
  if (items.length <= 2) return items.join(' or ');
  return `${items.slice(0, -1).join(', ')}, or ${items[items.length - 1]}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** A schema's `$ref` followed within the bundle (`#/$defs/…`). */
function followRef(root: JsonSchema, node: unknown): unknown {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 16; hops++) {
    current = pointerSegments(current.$ref).reduce<unknown>((n, s) => (isObject(n) ? n[s] : undefined), root);
  }
  return current;
}

/** An object form in words: "an object with id, name" (the fields it requires), or "an object". */
function objectWords(schema: Record<string, unknown>): string {
  const required = Array.isArray(schema.required) ? schema.required.slice(0, 3).map((r) => printable(String(r))) : [];
  return required.length ? `an object with ${required.join(', ')}` : 'an object';
}

/** What one form of a oneOf or anyOf takes, in words: "an integer", "one of \"a\", \"b\"", "an object with id". */
function formWords(root: JsonSchema, node: unknown, depth: number): string[] {
  const schema = followRef(root, node);
  if (schema === true) return ['any value'];
  if (!isObject(schema)) return [];
  if ('const' in schema) return [show(schema.const)];
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.slice(0, 6).map(show);
    return [`${schema.enum.length === 1 ? values[0] : `one of ${values.join(', ')}${schema.enum.length > 6 ? ', …' : ''}`}`];
  }
  const nested = [...(Array.isArray(schema.oneOf) ? schema.oneOf : []), ...(Array.isArray(schema.anyOf) ? schema.anyOf : [])];
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
  const words: string[] = [];
  for (const type of types) {
    let word = TYPE_WORDS[type] ?? printable(type);
    if (type === 'string' && typeof schema.format === 'string') word = `a ${printable(schema.format).slice(0, 30)} string`;
    if (type === 'object') word = objectWords(schema);
    if (type === 'array') {
      const item = depth < 2 ? formWords(root, schema.items, depth + 1) : [];
      if (item.length === 1)
        word = `an array of ${item[0]
          .replace(/^an? /, '')
          .replace(/^(true or false)$/, 'booleans')
          .replace(/(?<!s)$/, 's')}`;
    }
    words.push(word);
  }
  if (!types.length && nested.length && depth < 2) for (const n of nested) words.push(...formWords(root, n, depth + 1));
  if (!words.length && Array.isArray(schema.allOf) && depth < 2) for (const n of schema.allOf) words.push(...formWords(root, n, depth + 1));
  if (!words.length && isObject(schema.properties)) words.push(objectWords(schema));
  return words;
}

/** The forms a oneOf or anyOf allows, each said once. */
function formsOf(root: JsonSchema, branches: readonly unknown[]): string[] {
  return [...new Set(branches.slice(0, 12).flatMap((b) => formWords(root, b, 0)))].slice(0, 8);
}

/** Whether a form of a oneOf or anyOf takes values of the type this one has (a form that says no type takes any). */
function takesTypeOf(root: JsonSchema, form: unknown, value: unknown, depth = 0): boolean {
  const schema = followRef(root, form);
  if (!isObject(schema)) return schema !== false;
  const type = jsonType(value);
  if ('const' in schema) return jsonType(schema.const) === type;
  if (Array.isArray(schema.enum)) return schema.enum.some((v) => jsonType(v) === type);
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : undefined;
  if (types && !types.some((t) => t === type || (t === 'number' && type === 'integer'))) return false;
  // An object form whose property is a constant (`object: card`, a discriminator) takes no object holding another value there.
  if (type === 'object' && isObject(schema.properties) && contradictsConstant(root, schema.properties, value as Record<string, unknown>)) return false;
  if (types) return true;
  // Forms of its own (a nullable oneOf is `anyOf: [{oneOf: …}, {type: null}]`): it takes what one of them takes.
  const nested = [...(Array.isArray(schema.oneOf) ? schema.oneOf : []), ...(Array.isArray(schema.anyOf) ? schema.anyOf : [])];
  if (nested.length && depth < 4) return nested.some((n) => takesTypeOf(root, n, value, depth + 1));
  if (Array.isArray(schema.allOf) && schema.allOf.length && depth < 4) return schema.allOf.every((n) => takesTypeOf(root, n, value, depth + 1));
  return isObject(schema.properties) ? type === 'object' : true;
}

function contradictsConstant(root: JsonSchema, properties: Record<string, unknown>, value: Record<string, unknown>): boolean {
  return Object.entries(properties).some(([name, sub]) => {
    if (!Object.hasOwn(value, name)) return false;
    const property = followRef(root, sub);
    if (!isObject(property)) return false;
    const only = 'const' in property ? [property.const] : Array.isArray(property.enum) && property.enum.length === 1 ? property.enum : undefined;
    return only !== undefined && JSON.stringify(only[0]) !== JSON.stringify(value[name]);
  });
}

/** The index of the one form of a failed oneOf or anyOf that takes the value's type, if one only does. */
function onlyFormOfItsType(root: JsonSchema, unit: OutputUnit, value: unknown): number | undefined {
  const forms = keywordValue(root, unit.keywordLocation).value;
  if (!Array.isArray(forms)) return undefined;
  const instance = instanceAt(value, unit.instanceLocation);
  const taking = forms.flatMap((form, i) => (takesTypeOf(root, form, instance) ? [i] : []));
  return taking.length === 1 ? taking[0] : undefined;
}

export interface Violation {
  /** The instance path within the checked value (`address/city`), empty for the value itself. */
  path: string[];
  /** What is expected, as a phrase: "must be at least 1". */
  expected: string;
}

function describe(unit: OutputUnit, root: JsonSchema, instance: unknown): Violation | undefined {
  if (WRAPPERS.has(unit.keyword)) return undefined;
  const path = pointerSegments(unit.instanceLocation);
  const { value: keywordArg } = keywordValue(root, unit.keywordLocation);
  const got = instanceAt(instance, unit.instanceLocation);
  const quoted = /"([^"]*)"/.exec(unit.error)?.[1];
  switch (unit.keyword) {
    case 'required':
      return quoted === undefined ? { path, expected: 'is missing a required field' } : { path: [...path, quoted], expected: 'is required' };
    case 'additionalProperties':
      return quoted === undefined ? undefined : { path: [...path, quoted], expected: 'is not a field the operation takes' };
    case 'type':
      return { path, expected: `must be of type ${Array.isArray(keywordArg) ? keywordArg.join(' or ') : String(keywordArg)} (got ${show(got)})` };
    case 'enum':
      return { path, expected: `must be one of ${Array.isArray(keywordArg) ? keywordArg.map(show).join(', ') : '?'} (got ${show(got)})` };
    case 'const':
      return { path, expected: `must be ${show(keywordArg)}` };
    case 'minimum':
      return { path, expected: `must be at least ${String(keywordArg)} (got ${show(got)})` };
    case 'maximum':
      return { path, expected: `must be at most ${String(keywordArg)} (got ${show(got)})` };
    case 'exclusiveMinimum':
      return { path, expected: `must be greater than ${String(keywordArg)} (got ${show(got)})` };
    case 'exclusiveMaximum':
      return { path, expected: `must be less than ${String(keywordArg)} (got ${show(got)})` };
    case 'minLength':
      return { path, expected: `must be at least ${String(keywordArg)} characters long` };
    case 'maxLength':
      return { path, expected: `must be at most ${String(keywordArg)} characters long` };
    case 'pattern':
      return { path, expected: `must match the pattern ${show(keywordArg)}` };
    case 'format':
      return { path, expected: `must be a valid ${printable(String(keywordArg))} (got ${show(got)})` };
    case 'minItems':
      return { path, expected: `must have at least ${String(keywordArg)} items` };
    case 'maxItems':
      return { path, expected: `must have at most ${String(keywordArg)} items` };
    case 'uniqueItems':
      return { path, expected: 'must not repeat an item' };
    case 'multipleOf':
      return { path, expected: `must be a multiple of ${String(keywordArg)}` };
    case 'anyOf':
    case 'oneOf': {
      const forms = Array.isArray(keywordArg) ? formsOf(root, keywordArg) : [];
      const matches = Number(/\((\d+) matches\)/.exec(unit.error)?.[1] ?? 0);
      if (unit.keyword === 'oneOf' && matches > 1)
        return { path, expected: `fits ${matches} of the forms the description allows, which must tell them apart${forms.length ? ` (${orList(forms)})` : ''} (got ${show(got)})` };
      return {
        path,
        expected: forms.length ? `must be ${forms.length > 1 ? 'one of: ' : ''}${orList(forms)} (got ${show(got)})` : `must match one of the forms the description allows (got ${show(got)})`,
      };
    }
    default:
      return { path, expected: printable(unit.error.replace(/\.$/, '')).toLowerCase() };
  }
}

/** How long one check may take: a schema's `pattern` runs on a backtracking engine, and a description's pattern can be made to take for ever on the right value. */
export const CHECK_TIME_LIMIT_MS = 500;

/** A check that did not end in time: the value could not be checked, which is not the same as valid. */
export class CheckTookTooLong extends Error {}

/** The one context and script every timed check runs through, made on first use. */
let timed: { context: import('node:vm').Context; script: import('node:vm').Script } | undefined;

/**
 * Runs `job` with a time limit that interrupts it even inside a regular expression: Node stops a
 * script run in a context once its timeout passes, whatever realm the running code belongs to.
 */
function withinTime<T>(job: () => T, ms: number): T {
  if (!timed) {
    const vm: typeof import('node:vm') = requireCommonJs('node:vm');
    timed = { context: vm.createContext({ job: undefined }), script: new vm.Script('job()') };
  }
  timed.context.job = job;
  try {
    return timed.script.runInContext(timed.context, { timeout: Math.max(1, Math.ceil(ms)) }) as T;
  } catch (err) {
    // Made in the context's realm: not an instance of this realm's Error.
    if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new CheckTookTooLong();
    // A chain of references deeper than the stack: a description no check can follow, said so in words.
    if ((err as { name?: unknown } | null)?.name === 'RangeError') throw new Error('its schema nests too deep to check');
    throw err;
  } finally {
    timed.context.job = undefined;
  }
}

/** A key of a regular expression the description wrote: `pattern`, `patternProperties`. */
const PATTERN_KEY = /"pattern(?:Properties)?":/;

/**
 * Whether a schema holds a regular expression of the description's: only such a check can run
 * for ever on a value, so only it needs the timed context (whose making costs a millisecond).
 * Formats are checked by the validator's own expressions. A schema too deep to write out is
 * taken to hold one.
 */
function holdsPattern(schema: JsonSchema): boolean {
  // Help tries many example values against one schema: each schema is written out once.
  if (typeof schema !== 'object' || schema === null) return false;
  let holds = patterned.get(schema);
  if (holds === undefined) {
    try {
      holds = PATTERN_KEY.test(JSON.stringify(schema) ?? '');
    } catch {
      holds = true;
    }
    patterned.set(schema, holds);
  }
  return holds;
}

/** Whether each schema checked so far holds a description's expression (holdsPattern). */
const patterned = new WeakMap<object, boolean>();

/** A check that holds no description's expression, run as it is; a chain of references deeper than the stack said in words as withinTime says it. */
function untimed<T>(job: () => T): T {
  try {
    return job();
  } catch (err) {
    if (err instanceof RangeError) throw new Error('its schema nests too deep to check');
    throw err;
  }
}

/**
 * The violations of a value against a schema, the most specific first, one per place. Throws
 * CheckTookTooLong when the check does not end within `limitMs`.
 */
export function check(schema: JsonSchema, value: unknown, limitMs: number = CHECK_TIME_LIMIT_MS): Violation[] {
  const { Validator } = loadValidator();
  const validator = new Validator(schema as never, '2020-12', false);
  const result = holdsPattern(schema) ? withinTime(() => validator.validate(value), limitMs) : untimed(() => validator.validate(value));
  if (result.valid) return [];
  const seen = new Set<string>();
  const out: Violation[] = [];
  const all = result.errors as OutputUnit[];
  // A oneOf or anyOf that failed says what it allows; the failures of each of its forms inside it say less.
  // Unless the value has the type of one form only (an object where the forms are an integer or an
  // object): then that form's own failures say what is wrong ("size must be at most 100").
  const narrowed = new Map<OutputUnit, string>();
  for (const u of all) {
    if (u.keyword !== 'oneOf' && u.keyword !== 'anyOf') continue;
    const form = onlyFormOfItsType(schema, u, value);
    const prefix = `${u.keywordLocation}/${form}/`;
    if (form !== undefined && all.some((inner) => inner.keywordLocation.startsWith(prefix) && describe(inner, schema, value))) narrowed.set(u, prefix);
  }
  const composites = all.filter((u) => (u.keyword === 'oneOf' || u.keyword === 'anyOf') && !narrowed.has(u)).map((u) => `${u.keywordLocation}/`);
  // Inside a narrowed oneOf or anyOf, the failures of its other forms.
  const inOtherForm = (loc: string) => [...narrowed].some(([u, prefix]) => loc.startsWith(`${u.keywordLocation}/`) && !loc.startsWith(prefix));
  const units = all.filter((u) => !narrowed.has(u) && !composites.some((c) => u.keywordLocation.startsWith(c)) && !inOtherForm(u.keywordLocation));
  // The deepest places first: "seats must be at least 1" says more than "the body does not match".
  const ordered = [...units].sort((a, b) => pointerSegments(b.instanceLocation).length - pointerSegments(a.instanceLocation).length);
  for (const unit of ordered) {
    const v = describe(unit, schema, value);
    if (!v) continue;
    const key = v.path.join('\u0000');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

/**
 * A test of whether values pass their schemas, for trying example values: all its checks together
 * take at most `budgetMs` (a description's pattern may backtrack on every value tried), each at
 * most a tenth of a second; past the budget, or for a check that cannot end or run, no pass.
 */
export function accepter(budgetMs = 1000): (schema: JsonSchema, value: unknown) => boolean {
  let left = budgetMs;
  return (schema, value) => {
    if (left <= 0) return false;
    const started = performance.now();
    const limit = Math.min(left, 100);
    let spent = 0;
    try {
      return check(schema, value, limit).length === 0;
    } catch (err) {
      // A check stopped at its limit spent all of it, whatever the clock read around it.
      if (err instanceof CheckTookTooLong) spent = limit;
      return false;
    } finally {
      left -= Math.max(spent, performance.now() - started);
    }
  };
}
