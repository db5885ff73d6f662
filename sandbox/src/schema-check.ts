// The part of JSON Schema the sandbox's own description uses, checked on the server side so
// that a client can be tested against a real refusal (400 naming the field). It is not a
// general validator: it knows the keywords the description in catalogue.ts writes, and an
// unknown keyword is ignored, as JSON Schema says.

export type Schema = Record<string, unknown>;

export interface Violation {
  /** Where in the value: `title`, `address.city`, `lessons[1].kind`; `body` for the whole value. */
  field: string;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// Deliberately plain: enough to refuse what a person mistypes, not RFC 5322 or RFC 3339 in full.
const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/,
  date: /^\d{4}-\d\d-\d\d$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/,
};

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function join(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent || 'body'}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/** Resolves a local `$ref` (`#/components/schemas/X`) against the document it belongs to. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    if (!isObject(node)) return undefined;
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isObject(node) ? node : undefined;
}

/** The first violation of `schema` by `value`, or undefined when the value conforms. */
export function firstViolation(value: unknown, schema: Schema, root: Schema, field = ''): Violation | undefined {
  const at = field || 'body';
  const fail = (message: string): Violation => ({ field: at, message });
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(root, schema.$ref);
    return target ? firstViolation(value, target, root, field) : fail(`cannot be checked (unresolved ${schema.$ref})`);
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length && !types.some((t) => matchesType(value, t)))
    return fail(`must be ${types.map((t) => (t === 'integer' ? 'an integer' : t === 'array' || t === 'object' ? `an ${t}` : `a ${t}`)).join(' or ')}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value)) return fail(`must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);

  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) {
      return fail(schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters long`);
    }
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return fail(`must be at most ${schema.maxLength} characters long`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return fail(`must match the pattern ${schema.pattern}`);
    const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
    if (format && !format.test(value)) return fail(`must be a valid ${schema.format}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return fail(`must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) return fail(`must be at most ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return fail(`must hold at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return fail(`must hold at most ${schema.maxItems} items`);
    if (schema.uniqueItems === true && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return fail('must not repeat an item');
    if (isObject(schema.items)) {
      for (const [i, item] of value.entries()) {
        const found = firstViolation(item, schema.items, root, join(field, i));
        if (found) return found;
      }
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) if (typeof name === 'string' && !(name in value)) return { field: join(field, name), message: 'is required' };
    }
    if (typeof schema.minProperties === 'number' && Object.keys(value).length < schema.minProperties)
      return fail(`must set at least ${schema.minProperties} field${schema.minProperties === 1 ? '' : 's'}`);
    for (const [name, item] of Object.entries(value)) {
      const own = properties[name];
      if (isObject(own)) {
        if (own.readOnly === true) return { field: join(field, name), message: 'is set by the server and cannot be written' };
        const found = firstViolation(item, own, root, join(field, name));
        if (found) return found;
      } else if (schema.additionalProperties === false) {
        return { field: join(field, name), message: 'is not a known field' };
      } else if (isObject(schema.additionalProperties)) {
        const found = firstViolation(item, schema.additionalProperties, root, join(field, name));
        if (found) return found;
      }
    }
  }
  return undefined;
}
