/**
 * What every serializer of the request builder shares: a value as text, and the two ways of
 * percent-encoding it (everything but the unreserved characters, or with `allowReserved` the
 * reserved ones kept too).
 */

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value inside a style as text: a string as it is, a number or boolean as written, null empty, anything else as JSON. */
export function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Percent-encoded but for RFC 3986's unreserved characters (and `!'()*`, which no parser of paths or queries splits on). */
export function encode(text: string): string {
  return encodeURIComponent(text);
}

/**
 * `allowReserved`: RFC 3986's reserved characters kept as they are, except the four that would
 * change what a query says (`#` ends it, `&` and `=` split it, `+` reads as a space in forms).
 */
export function encodeAllowingReserved(text: string): string {
  return encodeURIComponent(text).replace(/%(3A|2F|3F|5B|5D|40|24|27|28|29|2A|2C|3B)/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** The name-value pairs of an object, in its order, those without a value left out. */
export function entriesOf(value: Record<string, unknown>): Array<[string, unknown]> {
  return Object.entries(value).filter(([, v]) => v !== undefined);
}
