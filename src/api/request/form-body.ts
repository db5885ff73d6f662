/**
 * An `application/x-www-form-urlencoded` body from the object of its fields: each field written as
 * a query parameter of the style its `encoding` gives (default `form`, exploded: an array's items
 * repeated, `tags=a&tags=b`); `deepObject` where the encoding asks (Stripe's `metadata[plan]=pro`);
 * a field whose encoding content type is JSON as JSON text.
 */
import { UsageError } from '../../errors.js';
import type { EncodingShape } from '../request-shape.js';
import { queryPairs } from './query-param.js';
import { entriesOf, isObject } from './values.js';

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

export function formBody(value: unknown, encoding: Readonly<Record<string, EncodingShape>> = {}): string {
  if (!isObject(value)) throw new UsageError('A form body is made of fields: give them as flags, or --input a JSON object of them.');
  const pairs: Array<[string, string]> = [];
  for (const [name, field] of entriesOf(value)) {
    const how = Object.hasOwn(encoding, name) ? encoding[name] : {};
    const style = how.style ?? 'form';
    pairs.push(
      ...queryPairs(name, field, {
        style,
        explode: how.explode ?? style === 'form',
        ...(how.allowReserved ? { allowReserved: true } : {}),
        ...(how.contentType && JSON_TYPE.test(how.contentType) ? { json: true } : {}),
      }),
    );
  }
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}
