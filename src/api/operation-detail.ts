/**
 * What a command needs of one operation beyond its name: its fields (each parameter, each property
 * of its JSON body) with their types, and self-contained JSON Schemas to check a request against.
 * Made once when the description is fetched and cached beside it, so a command reads the detail
 * of its own operation only. The document is untrusted: `$ref` loops end, remote references are
 * dropped, a schema has a size budget, and keywords that would change how references resolve
 * (`$id`, `$anchor`, …) are left out.
 */
import { type ModelOperation, resolvePointer } from './operations.js';
import { fieldMedia } from './request-shape.js';

export type JsonSchema = Record<string, unknown>;
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'json';
type FieldLocation = 'path' | 'query' | 'header' | 'cookie' | 'body';

export interface FieldSpec {
  location: FieldLocation;
  /** The parameter's name, or the body property's path joined with dots. */
  name: string;
  /** For a body property: its path from the body's top. */
  path?: string[];
  type: FieldType;
  /** An array: the flag is repeated, one value each time. */
  array: boolean;
  enum?: Array<string | number | boolean | null>;
  default?: unknown;
  format?: string;
  required: boolean;
  /** The value may be null (`nullable: true`, a `"null"` type or form): the flag takes `null` for it. */
  nullable?: true;
  description?: string;
  deprecated?: boolean;
  /** The bounds the schema sets, for help: "1 to 500", "at most 200 characters", "pattern ^[a-z]+$". */
  limits?: string;
}

export interface OperationDetail {
  fields: FieldSpec[];
  /** By `location:name`: the parameter's schema, ready for a validator. */
  paramSchemas: Record<string, JsonSchema>;
  /** The body's schema (of its first media type made of fields: JSON, form, multipart), ready for a validator. */
  bodySchema?: JsonSchema;
  /** By media type: the schema of another media type made of fields, where it differs from bodySchema's. */
  mediaSchemas?: Record<string, JsonSchema>;
  /** Whether the JSON body is an object (its properties are flags) or something else (only from --input). */
  bodyIsObject: boolean;
  /** For `--format table`: the columns of a listing's items, and the property holding the list in a wrapped answer. */
  columns?: string[];
  listKey?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How much of a schema is kept for checks: beyond it, a part accepts any value. */
const BUNDLE_NODES = 20_000;
const BUNDLE_DEPTH = 64;
/** How deep body properties become dotted flags, and how many flags one operation gets. */
const FLAG_DEPTH = 4;
const MAX_FIELDS = 300;
const MAX_COLUMNS = 8;

/** Keywords that would make a validator look elsewhere than where the document's pointers lead. */
const DROPPED = new Set(['$id', '$schema', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$vocabulary', '$comment', 'id']);

/** A pattern a validator can run: it compiles as a Unicode regular expression. How long it runs is bounded where it runs (commands/api/checks.ts). */
function validPattern(pattern: unknown): boolean {
  if (typeof pattern !== 'string' || pattern.length > 1000) return false;
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** Whether a schema's property (its own `$ref` followed) is marked readOnly. */
function readOnlyProperty(doc: unknown, properties: unknown, name: string): boolean {
  if (!isObject(properties) || !Object.hasOwn(properties, name)) return false;
  let prop = properties[name];
  for (let hops = 0; isObject(prop) && typeof prop.$ref === 'string' && hops < 8; hops++) prop = resolvePointer(doc, prop.$ref);
  return isObject(prop) && prop.readOnly === true;
}

/**
 * A schema that also accepts null (OpenAPI 3.0's `nullable: true`): null added to its `type` and
 * `enum`, or, where its forms come from `oneOf`, `anyOf`, `allOf`, `$ref` or `const`, which a type
 * cannot widen, null as a form of its own beside them.
 */
function orNull(schema: JsonSchema): JsonSchema {
  if (schema.oneOf || schema.anyOf || schema.allOf || schema.$ref || 'const' in schema || schema.not) return { anyOf: [schema, { type: 'null' }] };
  const out = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  return out;
}

/** Keywords whose object value a validator reads as a value, never as a schema. */
const OBJECT_VALUES: ReadonlySet<string> = new Set(['const', 'default', 'dependentRequired']);

/**
 * A schema that stands alone: every local `$ref` rewritten to `#/$defs/…` and its target copied
 * there (once, so a loop stays a loop the validator follows lazily), OpenAPI 3.0's `nullable` and
 * boolean `exclusiveMinimum`/`exclusiveMaximum` in their JSON Schema forms.
 */
export function bundleSchema(doc: unknown, schema: unknown): JsonSchema {
  const defs: Record<string, JsonSchema | boolean> = {};
  const keys = new Map<string, string>();
  const queue: Array<[string, unknown]> = [];
  let nodes = BUNDLE_NODES;

  const refKey = (ref: string): string | undefined => {
    if (!ref.startsWith('#')) return undefined;
    let key = keys.get(ref);
    if (key === undefined) {
      key = `d${keys.size}`;
      keys.set(ref, key);
      queue.push([key, resolvePointer(doc, ref)]);
    }
    return key;
  };

  const copy = (node: unknown, depth: number): JsonSchema | boolean => {
    if (typeof node === 'boolean') return node;
    if (!isObject(node) || depth > BUNDLE_DEPTH || nodes <= 0) return {};
    nodes -= 1;
    if (typeof node.$ref === 'string') {
      const key = refKey(node.$ref);
      if (key === undefined) return {};
      // A 3.0 reference beside `nullable: true` (GitHub writes it so): the referenced schema, or null.
      return node.nullable === true ? orNull({ $ref: `#/$defs/${key}` }) : { $ref: `#/$defs/${key}` };
    }
    const out: JsonSchema = {};
    let example: unknown[] | undefined;
    for (const [k, v] of Object.entries(node)) {
      if (DROPPED.has(k) || k === '$ref' || k === '$defs' || k === 'definitions' || k === '__proto__') continue;
      switch (k) {
        case 'properties':
        case 'patternProperties':
        case 'dependentSchemas': {
          if (!isObject(v)) break;
          const props: Record<string, unknown> = {};
          for (const [name, sub] of Object.entries(v)) {
            if (name === '__proto__' || (k === 'patternProperties' && !validPattern(name))) continue;
            props[name] = copy(sub, depth + 1);
          }
          out[k] = props;
          break;
        }
        case 'items':
          // An array of item schemas is the tuple form of drafts before 2020-12.
          if (Array.isArray(v)) out.prefixItems = v.slice(0, 100).map((s) => copy(s, depth + 1));
          else out.items = copy(v, depth + 1);
          break;
        case 'prefixItems':
        case 'allOf':
        case 'anyOf':
        case 'oneOf':
          if (Array.isArray(v) && v.length) out[k] = v.slice(0, 100).map((s) => copy(s, depth + 1));
          break;
        case 'additionalProperties':
        case 'not':
        case 'contains':
        case 'propertyNames':
        case 'if':
        case 'then':
        case 'else':
        case 'unevaluatedProperties':
        case 'unevaluatedItems':
        case 'additionalItems':
          out[k] = copy(v, depth + 1);
          break;
        case 'pattern':
          if (validPattern(v)) out.pattern = v;
          break;
        case 'enum':
          if (Array.isArray(v) && v.length) out.enum = v.slice(0, 1000);
          break;
        case 'type':
          if (typeof v === 'string' || (Array.isArray(v) && v.every((t) => typeof t === 'string'))) out.type = v;
          break;
        case 'required':
          // A readOnly property is the server's to send: required of a response, never of a request (OpenAPI 3.0).
          if (Array.isArray(v)) out.required = v.filter((r) => typeof r === 'string' && !readOnlyProperty(doc, node.properties, r));
          break;
        case 'example':
          // Kept for example lines (examples.ts) when small, first among `examples`: a validator
          // walks an unknown keyword's object as a schema (an `id` in it would name a schema), never
          // the members of an `examples` array.
          if (v !== null && (JSON.stringify(v) ?? '').length <= 200) example = [v];
          break;
        case 'examples':
          if (Array.isArray(v)) {
            const small = v.filter((e) => e !== null && (JSON.stringify(e) ?? '').length <= 200).slice(0, 2);
            if (small.length) out.examples = small;
          }
          break;
        case 'description':
        case 'title':
        case 'xml':
        case 'externalDocs':
        case 'discriminator':
          break; // words for people, not checks
        default:
          // Other keywords (minimum, maxLength, format, const, default, …) as sent; a validator ignores
          // what it does not know, but walks an object under a keyword it does not know as a schema:
          // such objects are left out, but for the values it never reads as schemas.
          if (k.startsWith('x-')) break;
          if (isObject(v) && !OBJECT_VALUES.has(k)) break;
          out[k] = v;
      }
    }
    if (example) out.examples = [...example, ...(Array.isArray(out.examples) ? out.examples : [])].slice(0, 3);
    // OpenAPI 3.0: booleans for the exclusive bounds; `nullable: true` lets null through (below).
    const nullable = out.nullable === true;
    delete out.nullable;
    for (const [bound, exclusive] of [
      ['minimum', 'exclusiveMinimum'],
      ['maximum', 'exclusiveMaximum'],
    ] as const) {
      if (out[exclusive] === true && typeof out[bound] === 'number') {
        out[exclusive] = out[bound];
        delete out[bound];
      } else if (typeof out[exclusive] === 'boolean') delete out[exclusive];
    }
    return nullable ? orNull(out) : out;
  };

  const root = copy(schema, 0);
  for (let i = 0; i < queue.length; i++) {
    const [key, target] = queue[i];
    defs[key] = target === undefined ? {} : copy(target, 1);
  }
  const top: JsonSchema = typeof root === 'boolean' ? (root ? {} : { not: {} }) : root;
  return Object.keys(defs).length ? { ...top, $defs: defs } : top;
}

/** How deep `allOf` members are merged within members: beyond it, a chain is treated as a loop (its value taken as JSON). */
const FLATTEN_DEPTH = 32;

/** A schema with its `$ref`s followed and `allOf` members merged, one level deep; undefined for a loop or a chain too deep to follow. */
function flatten(doc: unknown, schema: unknown, seen: ReadonlySet<string> = new Set(), depth = 0): { schema: Record<string, unknown>; seen: Set<string> } | undefined {
  if (depth > FLATTEN_DEPTH) return undefined;
  let node = schema;
  const refs = new Set(seen);
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
    if (refs.has(node.$ref) || hops > 32) return undefined;
    refs.add(node.$ref);
    node = resolvePointer(doc, node.$ref);
  }
  if (!isObject(node)) return { schema: {}, seen: refs };
  if (!Array.isArray(node.allOf)) return { schema: node, seen: refs };
  const merged: Record<string, unknown> = { ...node };
  delete merged.allOf;
  const properties: Record<string, unknown> = isObject(node.properties) ? { ...node.properties } : {};
  const required = new Set(Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : []);
  for (const member of node.allOf.slice(0, 20)) {
    const part = flatten(doc, member, refs, depth + 1);
    if (!part) continue;
    for (const [k, v] of Object.entries(part.schema)) if (!(k in merged) && k !== 'properties' && k !== 'required') merged[k] = v;
    if (isObject(part.schema.properties)) Object.assign(properties, part.schema.properties);
    if (Array.isArray(part.schema.required)) for (const r of part.schema.required) if (typeof r === 'string') required.add(r);
  }
  if (Object.keys(properties).length) merged.properties = properties;
  if (required.size) merged.required = [...required];
  return { schema: merged, seen: refs };
}

const SIMPLE: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean']);

function typesOf(schema: Record<string, unknown>): string[] {
  const declared = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === 'string') : [];
  return declared.filter((t) => t !== 'null');
}

function enumOf(schema: Record<string, unknown>): FieldSpec['enum'] {
  if (!Array.isArray(schema.enum)) return undefined;
  const values = schema.enum.filter((v): v is string | number | boolean | null => v === null || ['string', 'number', 'boolean'].includes(typeof v));
  return values.length === schema.enum.length && values.length > 0 ? values.slice(0, 200) : undefined;
}

/** The flag type of a value schema: one simple type, else any JSON value. */
function scalarType(schema: Record<string, unknown>): FieldType {
  const types = typesOf(schema);
  if (types.length === 1 && SIMPLE.has(types[0])) return types[0] as FieldType;
  if (types.length === 0 && !schema.anyOf && !schema.oneOf) {
    const values = enumOf(schema);
    if (values?.every((v) => typeof v === 'string' || v === null)) return 'string';
    if (values?.every((v) => typeof v === 'number' || v === null)) return 'number';
    if (values?.every((v) => typeof v === 'boolean' || v === null)) return 'boolean';
    if (!values && schema.const === undefined && !schema.properties && !schema.items) return 'string';
  }
  return 'json';
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function limitsOf(schema: Record<string, unknown>): string | undefined {
  const parts: string[] = [];
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  const xmin = num(schema.exclusiveMinimum);
  const xmax = num(schema.exclusiveMaximum);
  if (min !== undefined && max !== undefined) parts.push(`${min} to ${max}`);
  else if (min !== undefined) parts.push(`at least ${min}`);
  else if (max !== undefined) parts.push(`at most ${max}`);
  if (xmin !== undefined) parts.push(`more than ${xmin}`);
  if (xmax !== undefined) parts.push(`less than ${xmax}`);
  const minLength = num(schema.minLength);
  const maxLength = num(schema.maxLength);
  if (minLength !== undefined && maxLength !== undefined) parts.push(`${minLength} to ${maxLength} characters`);
  else if (minLength !== undefined) parts.push(`at least ${minLength} characters`);
  else if (maxLength !== undefined) parts.push(`at most ${maxLength} characters`);
  if (typeof schema.pattern === 'string' && schema.pattern.length <= 100) parts.push(`pattern ${schema.pattern}`);
  return parts.length ? parts.join(', ') : undefined;
}

/** Whether a schema lets null through: `nullable: true` (beside a `$ref` too), a `"null"` type, a null enum value, or a form that does. */
function allowsNull(doc: unknown, raw: unknown, depth = 0): boolean {
  if (!isObject(raw) || depth > 4) return false;
  if (raw.nullable === true) return true;
  const schema = flatten(doc, raw)?.schema;
  if (!schema) return false;
  if (schema.nullable === true || schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return [schema.oneOf, schema.anyOf].some((forms) => Array.isArray(forms) && forms.some((f) => allowsNull(doc, f, depth + 1)));
}

const smallDefault = (v: unknown): unknown => (v === null || ['boolean', 'number'].includes(typeof v) || (typeof v === 'string' && v.length <= 200) ? v : undefined);

function fieldFrom(doc: unknown, location: FieldLocation, name: string, raw: unknown, required: boolean, extra: Partial<FieldSpec> = {}): FieldSpec {
  const resolved = flatten(doc, raw)?.schema ?? {};
  let type: FieldType;
  let array = false;
  let valueSchema = resolved;
  if (typesOf(resolved).length === 1 && typesOf(resolved)[0] === 'array') {
    const items = flatten(doc, resolved.items)?.schema ?? {};
    const itemType = scalarType(items);
    array = true;
    type = itemType;
    valueSchema = items;
  } else type = scalarType(resolved);
  const values = enumOf(valueSchema);
  const description = typeof resolved.description === 'string' ? resolved.description : undefined;
  const def = smallDefault(resolved.default);
  const limits = limitsOf(valueSchema);
  const nullable = !array && allowsNull(doc, raw);
  return {
    location,
    name,
    type,
    array,
    ...(values ? { enum: values } : {}),
    ...(def !== undefined ? { default: def } : {}),
    ...(typeof valueSchema.format === 'string' && valueSchema.format.length <= 50 ? { format: valueSchema.format } : {}),
    required,
    ...(nullable ? { nullable: true as const } : {}),
    ...(description ? { description } : {}),
    ...(resolved.deprecated === true ? { deprecated: true } : {}),
    ...(limits ? { limits } : {}),
    ...extra,
  };
}

/** How many forms of a oneOf or anyOf give their properties to the flags of an object. */
const MAX_FORMS = 20;

/**
 * An object's properties, and those it requires: its own, or where it has none and is one of
 * several object forms (`oneOf`/`anyOf`, DigitalOcean's droplet of a `name` or of `names`), every
 * form's, the first form naming one giving its schema, required where every form requires it.
 * The checks still hold the value to exactly the forms.
 */
function objectProperties(doc: unknown, flat: { schema: Record<string, unknown>; seen: Set<string> }): { properties: Record<string, unknown>; required: Set<unknown>; seen: Set<string> } | undefined {
  if (isObject(flat.schema.properties)) return { properties: flat.schema.properties, required: new Set(Array.isArray(flat.schema.required) ? flat.schema.required : []), seen: flat.seen };
  const forms = Array.isArray(flat.schema.oneOf) ? flat.schema.oneOf : Array.isArray(flat.schema.anyOf) ? flat.schema.anyOf : undefined;
  if (!forms?.length) return undefined;
  const properties: Record<string, unknown> = {};
  const seen = new Set(flat.seen);
  let required: Set<unknown> | undefined;
  for (const form of forms.slice(0, MAX_FORMS)) {
    const part = flatten(doc, form, flat.seen);
    const own = part && isObject(part.schema.properties) ? part.schema.properties : undefined;
    // A form that is not an object of properties (a string, a bare array): no field is required by every form.
    if (!part || !own) {
      required = new Set();
      continue;
    }
    for (const [name, sub] of Object.entries(own)) if (!Object.hasOwn(properties, name)) Object.defineProperty(properties, name, { value: sub, enumerable: true, writable: true, configurable: true });
    for (const ref of part.seen) seen.add(ref);
    const formRequired = new Set(Array.isArray(part.schema.required) ? part.schema.required : []);
    required = required === undefined ? formRequired : new Set([...required].filter((r) => formRequired.has(r)));
  }
  // The forms' fields are offered only where the fields each form requires tell it from the others
  // (no form's required fields all required by another): then the fields given say which form is meant.
  if (!formsTellApart(doc, forms.slice(0, MAX_FORMS), flat.seen)) return undefined;
  return Object.keys(properties).length ? { properties, required: required ?? new Set(), seen } : undefined;
}

/** Whether each form requires a field some other form does not: then the fields given say which form a value is. */
function formsTellApart(doc: unknown, forms: readonly unknown[], seen: ReadonlySet<string>): boolean {
  const requiredOf = forms.map((form) => {
    const part = flatten(doc, form, seen);
    return new Set(part && Array.isArray(part.schema.required) ? part.schema.required : []);
  });
  return requiredOf.every((mine, i) => mine.size > 0 && requiredOf.every((other, j) => i === j || [...mine].some((r) => !other.has(r))));
}

/** The body's properties as fields: nested objects with properties become dotted names, to a depth. */
function bodyFields(doc: unknown, schema: unknown): FieldSpec[] {
  const fields: FieldSpec[] = [];
  const walk = (node: unknown, path: string[], parentRequired: boolean, seen: ReadonlySet<string>) => {
    const flattened = flatten(doc, node, seen);
    const flat = flattened && objectProperties(doc, flattened);
    if (!flat) return;
    const required = flat.required;
    for (const [name, sub] of Object.entries(flat.properties)) {
      if (fields.length >= MAX_FIELDS) return;
      if (name === '__proto__' || !name) continue;
      const here = [...path, name];
      const isRequired = parentRequired && required.has(name);
      const inner = flatten(doc, sub, flat.seen);
      if (!inner) {
        // A reference back to a schema being expanded: the property takes its value as JSON.
        fields.push({ location: 'body', name: here.join('.'), path: here, type: 'json', array: false, required: isRequired });
        continue;
      }
      const nested = isObject(inner.schema.properties) && Object.keys(inner.schema.properties).length > 0 && here.length < FLAG_DEPTH;
      if (nested && inner.schema.readOnly !== true) walk(sub, here, isRequired, flat.seen);
      else if (inner.schema.readOnly !== true) {
        const description = typeof inner.schema.description === 'string' ? inner.schema.description : undefined;
        fields.push(fieldFrom(doc, 'body', here.join('.'), sub, isRequired, { path: here, ...(description ? { description } : {}) }));
      }
    }
  };
  walk(schema, [], true, new Set());
  return fields;
}

function columnsOf(doc: unknown, schema: unknown): Pick<OperationDetail, 'columns' | 'listKey'> {
  const top = flatten(doc, schema)?.schema;
  if (!top) return {};
  const itemColumns = (items: unknown): string[] | undefined => {
    const item = flatten(doc, items)?.schema;
    if (!item || !isObject(item.properties)) return undefined;
    const names = Object.entries(item.properties)
      .filter(([, s]) => {
        const f = flatten(doc, s)?.schema ?? {};
        return scalarType(f) !== 'json' || enumOf(f) !== undefined;
      })
      .map(([n]) => n);
    return names.length ? names.slice(0, MAX_COLUMNS) : undefined;
  };
  if (typesOf(top).includes('array')) {
    const columns = itemColumns(top.items);
    return columns ? { columns } : {};
  }
  if (isObject(top.properties)) {
    for (const [name, sub] of Object.entries(top.properties)) {
      const f = flatten(doc, sub)?.schema;
      if (f && typesOf(f).includes('array')) {
        const columns = itemColumns(f.items);
        if (columns) return { columns, listKey: name };
      }
    }
  }
  return {};
}

/** Two schemas as the document writes them (a `$ref` to the same place is the same schema). */
function sameSchema(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    const text = JSON.stringify(a);
    return text.length < 100_000 && text === JSON.stringify(b);
  } catch {
    return false;
  }
}

/**
 * An operation's fields, and with `schemas` (the default) the schemas its values are checked
 * against: a listing of every operation needs the fields alone, and bundling each operation's
 * schemas would make its cost operations times schemas.
 */
export function operationDetail(doc: unknown, op: Pick<ModelOperation, 'parameters' | 'body' | 'responseSchema'>, options: { schemas?: boolean } = {}): OperationDetail {
  const schemas = options.schemas !== false;
  const fields: FieldSpec[] = [];
  const paramSchemas: Record<string, JsonSchema> = {};
  for (const p of op.parameters) {
    fields.push(fieldFrom(doc, p.in, p.name, p.schema, p.required, { ...(p.description ? { description: p.description } : {}), ...(p.deprecated ? { deprecated: true } : {}) }));
    if (schemas && p.schema !== undefined) paramSchemas[`${p.in}:${p.name}`] = bundleSchema(doc, p.schema);
  }
  let bodySchema: JsonSchema | undefined;
  let bodyIsObject = false;
  // The body's fields come from its first media type made of fields: JSON, a form, or multipart.
  if (op.body && op.body.schema !== undefined && fieldMedia(op.body.media)) {
    if (schemas) bodySchema = bundleSchema(doc, op.body.schema);
    const flat = flatten(doc, op.body.schema)?.schema ?? {};
    const objectOf = (d: unknown, schema: unknown) => {
      const whole = flatten(d, schema);
      return whole && objectProperties(d, whole);
    };
    bodyIsObject = isObject(flat.properties) || typesOf(flat).includes('object') || objectOf(doc, op.body.schema) !== undefined;
    if (bodyIsObject) fields.push(...bodyFields(doc, op.body.schema));
  }
  const mediaSchemas: Record<string, JsonSchema> = {};
  const fieldsMedia = op.body ? fieldMedia(op.body.media) : undefined;
  for (const m of schemas ? (op.body?.media ?? []) : []) {
    if (m === fieldsMedia || m.kind === 'raw' || m.schema === undefined || sameSchema(m.schema, fieldsMedia?.schema)) continue;
    mediaSchemas[m.type] = bundleSchema(doc, m.schema);
  }
  return {
    fields,
    paramSchemas,
    ...(bodySchema ? { bodySchema } : {}),
    ...(Object.keys(mediaSchemas).length ? { mediaSchemas } : {}),
    bodyIsObject,
    ...columnsOf(doc, op.responseSchema),
  };
}
