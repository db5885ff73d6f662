/**
 * Header and cookie parameters as OpenAPI serializes them: a header `simple` (`3,4,5`,
 * `role=admin,name=Alex` exploded), a cookie `form` (`id=3,4,5`, exploded `id=3; id=4`), cookie
 * values percent-encoded. A header value never holds a line break: refused, never folded.
 */
import { UsageError } from '../../errors.js';
import type { ParamShape } from '../request-shape.js';
import { encode, entriesOf, isObject, scalarText } from './values.js';

/** A header parameter's value. */
export function headerText(param: ParamShape, value: unknown): string {
  let text: string;
  if (param.contentType) text = JSON.stringify(value);
  else if (Array.isArray(value)) text = value.map(scalarText).join(',');
  else if (isObject(value))
    text = entriesOf(value)
      .map(([k, v]) => (param.explode ? `${k}=${scalarText(v)}` : `${k},${scalarText(v)}`))
      .join(',');
  else text = scalarText(value);
  // Tabs and visible characters only: anything else is not a header value (RFC 9110 §5.5).
  if (/[^\t\x20-\x7e\x80-\xff]/.test(text)) throw new UsageError(`The header ${param.name} cannot hold a line break or control character.`);
  return text;
}

/** The `name=value` pairs one cookie parameter adds to the `Cookie` header. */
export function cookiePairs(param: ParamShape, value: unknown): string[] {
  const name = encode(param.name);
  if (param.contentType) return [`${name}=${encode(JSON.stringify(value))}`];
  if (Array.isArray(value)) {
    const items = value.map((v) => encode(scalarText(v)));
    return param.explode ? items.map((v) => `${name}=${v}`) : [`${name}=${items.join(',')}`];
  }
  if (isObject(value)) {
    const pairs = entriesOf(value).map(([k, v]) => [encode(k), encode(scalarText(v))]);
    return param.explode ? pairs.map(([k, v]) => `${k}=${v}`) : [`${name}=${pairs.flat().join(',')}`];
  }
  return [`${name}=${encode(scalarText(value))}`];
}
