import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { decodeTextFile } from '../../util/text-file.js';
import { readNamedFile } from '../input-file.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

function splitField(field: string, flag: string): [string, string] {
  const eq = field.indexOf('=');
  if (eq <= 0) throw new UsageError(`Invalid ${flag} "${field}": use key=value.`);
  return [field.slice(0, eq), field.slice(eq + 1)];
}

/** `-F` values: numbers, booleans and null become JSON types; `@file` reads a file (`@-`: stdin). */
async function typedValue(raw: string, stdin: Readable): Promise<JsonValue> {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (raw.startsWith('@')) {
    return decodeTextFile(await readNamedFile(raw.slice(1), stdin));
  }
  return raw;
}

/** `a[b][c]` → ['a','b','c']; `tags[]` appends to an array. */
export function keyPath(key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`Invalid field name "${key}".`);
  const parts = [m[1]];
  for (const seg of m[2].matchAll(/\[([^[\]]*)\]/g)) parts.push(seg[1]);
  return parts;
}

/** An object without a prototype: any field name, `__proto__` and `constructor` included, is a plain key. */
function emptyObject(): { [k: string]: JsonValue } {
  const object: { [k: string]: JsonValue } = Object.create(null);
  return object;
}

function assign(target: { [k: string]: JsonValue }, path: string[], value: JsonValue, key: string): void {
  let node: { [k: string]: JsonValue } | JsonValue[] = target;
  for (let i = 0; i < path.length; i++) {
    const last = i === path.length - 1;
    const part = path[i];
    const nextIsArray = !last && path[i + 1] === '';
    if (Array.isArray(node)) {
      if (part !== '') throw new UsageError(`Field "${key}" mixes an array and an object.`);
      if (last) {
        node.push(value);
        return;
      }
      const child: { [k: string]: JsonValue } | JsonValue[] = nextIsArray ? [] : emptyObject();
      node.push(child);
      node = child;
      continue;
    }
    if (part === '') throw new UsageError(`Field "${key}" has an empty name.`);
    if (last) {
      node[part] = value;
      return;
    }
    // Own properties only: `__proto__[x]=1` names a field, it must not reach Object.prototype.
    const existing: JsonValue | undefined = Object.hasOwn(node, part) ? node[part] : undefined;
    if (existing === undefined || existing === null || typeof existing !== 'object') {
      node[part] = nextIsArray ? [] : emptyObject();
    } else if (Array.isArray(existing) !== nextIsArray) {
      throw new UsageError(`Field "${key}" mixes an array and an object.`);
    }
    node = node[part] as { [k: string]: JsonValue } | JsonValue[];
  }
}

/** Builds the parameters from -f (strings) and -F (typed) fields. */
export async function buildFields(raw: string[] = [], typed: string[] = [], stdin: Readable): Promise<{ [k: string]: JsonValue }> {
  const out = emptyObject();
  const items = [...raw.map((field) => ({ field, typed: false })), ...typed.map((field) => ({ field, typed: true }))];
  for (const item of items) {
    const [key, value] = splitField(item.field, item.typed ? '-F' : '-f');
    assign(out, keyPath(key), item.typed ? await typedValue(value, stdin) : value, key);
  }
  return out;
}

/** GET fields go in the query string; nested values use the bracket form they came in. */
export function toQuery(fields: { [k: string]: JsonValue }): URLSearchParams {
  const q = new URLSearchParams();
  const walk = (prefix: string, v: JsonValue) => {
    if (Array.isArray(v)) {
      for (const x of v) walk(`${prefix}[]`, x);
    } else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(`${prefix}[${k}]`, x);
    else q.append(prefix, v === null ? '' : String(v));
  };
  for (const [k, v] of Object.entries(fields)) walk(k, v);
  return q;
}

export function parseHeader(h: string): [string, string] {
  const i = h.indexOf(':');
  if (i <= 0) throw new UsageError(`Invalid header "${h}": use 'Name: value'.`);
  const name = h.slice(0, i).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`Invalid header name "${name}".`);
  const value = h.slice(i + 1).trim();
  if (/[\r\n\0]/.test(value)) throw new UsageError(`Invalid header "${name}": a value cannot contain line breaks.`);
  return [name, value];
}
