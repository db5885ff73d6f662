/**
 * A tool list held to a portable subset of JSON Schema: what MCP hosts pass on to the model APIs
 * behind them without rewriting it.
 *
 * The rules: tool names of at most 64 characters from `[A-Za-z0-9_-]` (fewer where the product
 * promises fewer), unique; an input schema of type object with no `anyOf`, `oneOf`, `allOf` or
 * `not` at its root (one model API refuses them there); one `type` per schema (no type arrays);
 * no references (every schema inlined); no boolean schemas but under `additionalProperties`; a
 * known set of keywords, each with a value of the right kind; property names of at most 64
 * characters from `[A-Za-z0-9_.-]`; `required` naming declared properties; text without control
 * or invisible characters. `format` values are not judged: JSON Schema makes them annotations,
 * which a host may drop. Each finding names the tool and the place in its schema.
 */

/** A tool as `tools/list` gives it. */
export interface ListedTool {
  name: unknown;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

export interface PortabilityFinding {
  tool: string;
  /** Where in the tool: `name`, `inputSchema.properties.id`… */
  at: string;
  problem: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const PROPERTY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** The keywords every host we know maps; anything else is refused or dropped by one of them. */
const KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'default',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  // Allowed at the root only: the dialect the schema is written in.
  '$schema',
]);
const NUMERIC = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];
const MAX_DEPTH = 32;
// Controls (but tab and newline) and the invisible and direction-changing characters a model would read but a person would not see.
const UNSEEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/** Every finding for a tool list; an empty list means it keeps to the subset. `nameLength`: the longest tool name allowed (64). */
export function toolPortabilityFindings(tools: readonly ListedTool[], options: { nameLength?: number } = {}): PortabilityFinding[] {
  const nameLength = options.nameLength ?? 64;
  const findings: PortabilityFinding[] = [];
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const name = typeof tool.name === 'string' ? tool.name : `#${index}`;
    const found = (at: string, problem: string) => findings.push({ tool: name, at, problem });
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name) || tool.name.length > nameLength) found('name', `is not 1 to ${nameLength} characters of A-Z, a-z, 0-9, _ and -`);
    else if (seen.has(tool.name)) found('name', 'is given to two tools');
    else seen.add(tool.name);
    if (tool.description !== undefined && (typeof tool.description !== 'string' || UNSEEN.test(tool.description))) {
      found('description', 'is not plain text');
    }
    if (!isObject(tool.inputSchema) || tool.inputSchema.type !== 'object') found('inputSchema', 'is not a schema of type object');
    else {
      for (const keyword of ['anyOf', 'oneOf', 'allOf', 'not']) if (keyword in tool.inputSchema) found(`inputSchema.${keyword}`, 'is a composition at the root, which a model API refuses there');
      checkSchema(tool.inputSchema, 'inputSchema', 0, found);
    }
    if (tool.outputSchema !== undefined) {
      if (!isObject(tool.outputSchema) || tool.outputSchema.type !== 'object') found('outputSchema', 'is not a schema of type object');
      else checkSchema(tool.outputSchema, 'outputSchema', 0, found);
    }
  }
  return findings;
}

/** One line per finding, for an assertion message. */
export const describeFindings = (findings: readonly PortabilityFinding[]) => findings.map((f) => `${f.tool} ${f.at}: ${f.problem}`).join('\n');

function checkSchema(schema: unknown, at: string, depth: number, found: (at: string, problem: string) => void): void {
  if (depth > MAX_DEPTH || typeof schema === 'boolean' || !isObject(schema)) {
    found(at, depth > MAX_DEPTH ? `nests deeper than ${MAX_DEPTH}` : typeof schema === 'boolean' ? `is the boolean schema ${schema}, not an object` : 'is not a schema');
    return;
  }
  for (const keyword of Object.keys(schema)) {
    if (keyword === '$ref' || keyword === '$defs' || keyword === 'definitions' || keyword === '$dynamicRef') found(`${at}.${keyword}`, 'is a reference, not inlined');
    else if (!KEYWORDS.has(keyword) || (keyword === '$schema' && depth > 0)) found(`${at}.${keyword}`, 'is a keyword hosts do not all know');
  }
  if ('type' in schema && (typeof schema.type !== 'string' || !TYPES.has(schema.type))) found(`${at}.type`, 'is not one JSON type');
  for (const keyword of ['description', 'title'] as const) {
    const value = schema[keyword];
    if (value !== undefined && (typeof value !== 'string' || UNSEEN.test(value))) found(`${at}.${keyword}`, 'is not plain text');
  }
  for (const keyword of NUMERIC) {
    if (keyword in schema && (typeof schema[keyword] !== 'number' || !Number.isFinite(schema[keyword]))) found(`${at}.${keyword}`, 'is not a number');
  }
  if ('format' in schema && typeof schema.format !== 'string') found(`${at}.format`, 'is not a string');
  if ('pattern' in schema) {
    try {
      new RegExp(String(schema.pattern), 'u');
      if (typeof schema.pattern !== 'string') throw new Error();
    } catch {
      found(`${at}.pattern`, 'is not a regular expression');
    }
  }
  if ('enum' in schema && (!Array.isArray(schema.enum) || schema.enum.length === 0 || !schema.enum.every(isScalar))) found(`${at}.enum`, 'is not a list of plain values');
  if ('properties' in schema) {
    if (!isObject(schema.properties)) found(`${at}.properties`, 'is not an object');
    else
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (!PROPERTY_NAME.test(name)) found(`${at}.properties`, `names a property ${JSON.stringify(name)} hosts refuse`);
        checkSchema(sub, `${at}.properties.${name}`, depth + 1, found);
      }
  }
  if ('required' in schema) {
    // Without `properties` a required name is still a fair constraint; with them, it must be one of them.
    const names = isObject(schema.properties) ? schema.properties : undefined;
    if (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === 'string' && (!names || Object.hasOwn(names, r)))) {
      found(`${at}.required`, 'names a property the schema does not have');
    }
  }
  if ('additionalProperties' in schema && typeof schema.additionalProperties !== 'boolean') checkSchema(schema.additionalProperties, `${at}.additionalProperties`, depth + 1, found);
  if ('items' in schema) checkSchema(schema.items, `${at}.items`, depth + 1, found);
  if ('not' in schema) checkSchema(schema.not, `${at}.not`, depth + 1, found);
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (!(keyword in schema)) continue;
    const list = schema[keyword];
    if (!Array.isArray(list) || list.length === 0) found(`${at}.${keyword}`, 'is not a list of schemas');
    else for (const [i, sub] of list.entries()) checkSchema(sub, `${at}.${keyword}[${i}]`, depth + 1, found);
  }
}
