/**
 * A query parameter (or a field of a form body, written the same way) as OpenAPI serializes it,
 * as encoded name-value pairs: `form` exploded (`id=3&id=4`) or not (`id=3,4`), `spaceDelimited`
 * (`id=3%204`), `pipeDelimited` (`id=3%7C4`), `deepObject` (`filter[status]=open`, nested
 * objects and arrays bracket by bracket: `metadata[plan]=pro`, `expand[0]=customer`).
 * `allowReserved` keeps reserved characters of the values as they are.
 */
import type { ParamStyle } from '../request-shape.js';
import { encode, encodeAllowingReserved, entriesOf, isObject, scalarText } from './values.js';

export interface QueryStyle {
  style: ParamStyle;
  explode: boolean;
  allowReserved?: boolean;
  /** A `content` parameter (or a form field with an encoding contentType of JSON): the value as JSON text. */
  json?: boolean;
}

/** Brackets stay readable in deepObject names; what is inside them is encoded. */
function deepPairs(name: string, value: unknown, enc: (t: string) => string, out: Array<[string, string]>): void {
  if (Array.isArray(value)) for (const [i, v] of value.entries()) deepPairs(`${name}[${i}]`, v, enc, out);
  else if (isObject(value)) for (const [k, v] of entriesOf(value)) deepPairs(`${name}[${encode(k)}]`, v, enc, out);
  else if (value !== undefined) out.push([name, enc(scalarText(value))]);
}

const DELIMITER: Partial<Record<ParamStyle, string>> = { form: ',', spaceDelimited: '%20', pipeDelimited: '%7C' };

/** The pairs of one parameter, each part encoded, ready to be joined with `=` and `&`. */
export function queryPairs(name: string, value: unknown, how: QueryStyle): Array<[string, string]> {
  if (value === undefined) return [];
  const enc = how.allowReserved ? encodeAllowingReserved : encode;
  const key = encode(name);
  if (how.json) return [[key, enc(JSON.stringify(value))]];
  if (how.style === 'deepObject') {
    const out: Array<[string, string]> = [];
    deepPairs(key, value, enc, out);
    return out;
  }
  const delimiter = DELIMITER[how.style] ?? ',';
  if (Array.isArray(value)) {
    const items = value.map((v) => enc(scalarText(v)));
    return how.explode ? items.map((v) => [key, v]) : [[key, items.join(delimiter)]];
  }
  if (isObject(value)) {
    const pairs = entriesOf(value).map(([k, v]): [string, string] => [encode(k), enc(scalarText(v))]);
    return how.explode ? pairs : [[key, pairs.flat().join(delimiter)]];
  }
  return [[key, enc(scalarText(value))]];
}
