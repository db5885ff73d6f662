/**
 * JSON Schemas for tool inputs, made from the schemas of an API description the server sent. The
 * document is untrusted: local `$ref`s are followed (a reference already being expanded is cut,
 * so a loop ends), remote ones are dropped, only the JSON Schema keywords hosts understand are
 * kept, each with a value of the right type, and every schema has a size and depth budget, so a
 * hostile or huge document can neither loop nor blow up into a schema no host would accept.
 */
import { resolvePointer } from '../api/operations.js';
import { patternVerdict } from './safe-pattern.js';

export type JsonSchema = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How deep a schema may nest, and how many schema nodes one tool's input may hold. */
const SCHEMA_LIMITS = { depth: 12, nodes: 1500, text: 500, enumValues: 200, chars: 32_000 } as const;
/** What a schema node costs of the characters budget beyond its texts: its keys and punctuation. */
const NODE_CHARS = 24;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'multipleOf', 'minProperties', 'maxProperties'] as const;
/** What a host accepts as a property name (model APIs refuse others), and what a model is not fooled by. */
export const PROPERTY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** The longest string kept as an `enum`, `const` or `default` value: a longer one is not a value a person chose. */
const MAX_VALUE_LENGTH = 200;

/** Text from the document for a model to read: control and invisible characters become spaces, long text is cut. */
export function cleanText(value: unknown, max: number = SCHEMA_LIMITS.text): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Controls, bidi and invisible format characters; lone surrogates.
  const text = value
    .replace(
      /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * Text of the server's marked as such for a model: quoted as a JSON string (so a quote in it
 * cannot end it) after a label that says whose words they are.
 */
export function serverWords(label: string, value: unknown, max: number = SCHEMA_LIMITS.text): string | undefined {
  const text = cleanText(value, max);
  return text === undefined ? undefined : `${label}: ${JSON.stringify(text)}`;
}

/** Several texts of the server's (names, scopes), each quoted as serverWords quotes one, after one label. */
export function serverList(label: string, values: readonly unknown[], max = 120): string | undefined {
  const texts = values.map((v) => cleanText(v, max)).filter((t) => t !== undefined);
  return texts.length ? `${label}: ${texts.map((t) => JSON.stringify(t)).join(', ')}` : undefined;
}

// Controls, bidi and invisible format characters (as cleanText removes them).
const UNSAFE_IN_VALUE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * A JSON value from the document, kept only when small and safe: for `enum`, `const` and
 * `default`. A value is sent back to the server as it is, so one that would need changing to be
 * safe is left out, never altered.
 */
function smallValue(value: unknown): unknown {
  if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  if (typeof value === 'string') return value.length <= MAX_VALUE_LENGTH && !UNSAFE_IN_VALUE.test(value) ? value : undefined;
  return undefined;
}

/**
 * One tool's budget, shared by every schema of its input: schema nodes, and characters (names,
 * descriptions, patterns, values), so that what a tool's input costs a host is bounded whatever
 * the description holds (one schema of 5,000 described properties is not 5,000 descriptions).
 */
export interface SchemaBudget {
  nodes: number;
  chars: number;
}

export function newBudget(): SchemaBudget {
  return { nodes: SCHEMA_LIMITS.nodes, chars: SCHEMA_LIMITS.chars };
}

/** Takes `cost` characters from the budget when it has them; a text it cannot pay for is left out. */
export function spend(budget: SchemaBudget, cost: number): boolean {
  if (cost > budget.chars) return false;
  budget.chars -= cost;
  return true;
}

/**
 * The schema as a plain JSON Schema for a host: references resolved, loops and anything past the
 * budget replaced by `{}` (any value), one type per schema (`null` and OpenAPI's `nullable` left out).
 */
export function toolSchema(doc: unknown, schema: unknown, budget: SchemaBudget = newBudget()): JsonSchema {
  return convert(doc, schema, budget, [], 0);
}

function convert(doc: unknown, input: unknown, budget: SchemaBudget, refs: string[], depth: number): JsonSchema {
  if (input === true || input === undefined) return {};
  if (input === false) return { not: {} };
  if (!isObject(input)) return {};
  if (depth > SCHEMA_LIMITS.depth || budget.nodes <= 0 || !spend(budget, NODE_CHARS)) return {};
  budget.nodes -= 1;
  let schema: Record<string, unknown> = input;
  let seen = refs;
  // A chain of references (A → B → C) is followed as long as it does not come back.
  for (let hops = 0; typeof schema.$ref === 'string'; hops++) {
    const ref = schema.$ref;
    if (seen.includes(ref) || hops > 32) return cutLoop(ref);
    const target = resolvePointer(doc, ref);
    if (!isObject(target)) return {};
    seen = [...seen, ref];
    schema = target;
  }
  const out: JsonSchema = {};
  const next = (value: unknown) => convert(doc, value, budget, seen, depth + 1);

  // One type per schema, the dialect every host maps: `null` is left out (an absent value says
  // as much), several types become anyOf branches.
  const declared = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  const types = [...new Set(declared.filter((t): t is string => typeof t === 'string' && TYPES.has(t) && t !== 'null'))];
  if (types.length === 1) out.type = types[0];
  else if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
  // Titles are left out: a description says the same, and is marked as the server's.
  const description = serverWords("Server's description", schema.description);
  if (description !== undefined && spend(budget, description.length)) out.description = description;
  if (typeof schema.format === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(schema.format)) out.format = schema.format;
  // A pattern no host could check, or one that could hang the host checking it, is no pattern;
  // the description says one was left out, so a model knows the server may still refuse a value.
  if (typeof schema.pattern === 'string') {
    const verdict = schema.pattern.length <= SCHEMA_LIMITS.text && !UNSAFE_IN_VALUE.test(schema.pattern) ? patternVerdict(schema.pattern) : 'unreadable';
    if (verdict === 'kept' && spend(budget, schema.pattern.length)) out.pattern = schema.pattern;
    else if (verdict === 'slow') addNote(out, "The server's pattern for this value is left out: checking it could take a host too long.");
    else addNote(out, "The server's pattern for this value is left out: it is not one a host can check.");
  }
  for (const key of NUMBER_KEYWORDS) {
    const value = schema[key];
    if (typeof value === 'number' && Number.isFinite(value)) out[key] = value;
  }
  if (typeof schema.uniqueItems === 'boolean') out.uniqueItems = schema.uniqueItems;
  if (Array.isArray(schema.enum)) {
    // Unsafe or long values are left out: the rest can still be chosen.
    const values = schema.enum
      .slice(0, SCHEMA_LIMITS.enumValues)
      .map(smallValue)
      .filter((v) => v !== undefined);
    if (values.length && spend(budget, JSON.stringify(values).length)) out.enum = values;
  }
  if ('const' in schema) {
    const value = smallValue(schema.const);
    if (value !== undefined) out.const = value;
  }
  if ('default' in schema) {
    const value = smallValue(schema.default);
    if (value !== undefined) out.default = value;
  }
  if (isObject(schema.properties)) {
    const properties: Record<string, JsonSchema> = {};
    let left = 0;
    const entries = Object.entries(schema.properties);
    let shown = 0;
    for (const [name, value] of entries) {
      if (budget.nodes <= 0 || budget.chars < NODE_CHARS + name.length) break;
      shown += 1;
      // A name no host accepts, or one long enough to carry a message of its own, is left out.
      if (!PROPERTY_NAME.test(name) || name === '__proto__') {
        left += 1;
        continue;
      }
      spend(budget, name.length);
      properties[name] = next(value);
    }
    out.properties = properties;
    // Past the budget the rest is left out, and the model told: the server may still take them.
    if (shown < entries.length) addNote(out, `${entries.length - shown} more properties are left out here: the schema is too large to show whole.`);
    if (left) {
      addNote(out, `${left} ${left === 1 ? 'property whose name' : 'properties whose names'} a host cannot take ${left === 1 ? 'is' : 'are'} left out here.`);
    }
  }
  if (Array.isArray(schema.required)) {
    const props = isObject(out.properties) ? out.properties : undefined;
    const required = [...new Set(schema.required.filter((r): r is string => typeof r === 'string' && (!props || Object.hasOwn(props, r))))];
    if (required.length) out.required = required;
  }
  if (typeof schema.additionalProperties === 'boolean') out.additionalProperties = schema.additionalProperties;
  else if (isObject(schema.additionalProperties)) out.additionalProperties = next(schema.additionalProperties);
  if (schema.items !== undefined && !Array.isArray(schema.items)) out.items = next(schema.items);
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length && out[key] === undefined) out[key] = list.slice(0, 50).map(next);
  }
  if (schema.not !== undefined && isObject(schema.not)) out.not = next(schema.not);
  return out;
}

/** A note of ours after the schema's description (the server's, labelled), or as the description. */
function addNote(out: JsonSchema, note: string): void {
  out.description = out.description ? `${String(out.description)} (${note})` : note;
}

/** Where a reference comes back to one being expanded: any value, saying what it would have been. */
function cutLoop(ref: string): JsonSchema {
  const name = serverWords("A value nested in itself, its schema not repeated here; the server's name for it", ref.split('/').pop() ?? '', 80);
  return name ? { description: name } : {};
}
