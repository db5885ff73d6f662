/**
 * A `multipart/form-data` body (RFC 7578) from the object of its fields: one part per field, one
 * per item of an array; a file (`format: binary`, read by the front-end) as its bytes with a file
 * name; an object as JSON (or, where its `encoding` gives a style, as a form writes it: one part
 * per name); other values as text; each part's Content-Type as the field's `encoding` says, else
 * OpenAPI's default. The boundary is made from the parts, so the same
 * fields give the same bytes from every front-end.
 */
import { UsageError } from '../../errors.js';
import { requireCommonJs } from '../../util/require.js';
import type { EncodingShape } from '../request-shape.js';
import { queryPairs } from './query-param.js';
import { entriesOf, isObject, scalarText } from './values.js';

/** The bytes of a file field, as the front-end read them (`@path`, `@-`, base64 from a tool). */
export class FilePart {
  constructor(
    readonly bytes: Uint8Array,
    readonly filename = 'file',
  ) {}
}

/** A name or file name inside a quoted header parameter, as HTML's form submission escapes it. */
const quoted = (text: string) => `"${text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

interface Part {
  headers: string;
  bytes: Uint8Array;
}

function partOf(name: string, value: unknown, how: EncodingShape): Part {
  let type = how.contentType;
  let bytes: Uint8Array;
  let filename = '';
  if (value instanceof FilePart) {
    type ??= 'application/octet-stream';
    bytes = value.bytes;
    filename = `; filename=${quoted(value.filename)}`;
  } else if (isObject(value) || Array.isArray(value)) {
    type ??= 'application/json';
    bytes = Buffer.from(JSON.stringify(value));
  } else bytes = Buffer.from(scalarText(value));
  if (type && /[\r\n]/.test(type)) throw new UsageError(`The content type of the part ${name} holds a line break.`);
  return { headers: `Content-Disposition: form-data; name=${quoted(name)}${filename}\r\n${type ? `Content-Type: ${type}\r\n` : ''}`, bytes };
}

export function multipartBody(value: unknown, encoding: Readonly<Record<string, EncodingShape>> = {}): { body: Buffer; boundary: string } {
  if (!isObject(value)) throw new UsageError('A multipart body is made of fields: give them as flags, or --input a JSON object of them.');
  const parts: Part[] = [];
  for (const [name, field] of entriesOf(value)) {
    if (field === null) continue;
    const how = Object.hasOwn(encoding, name) ? encoding[name] : {};
    // A style given (OpenAPI 3.1, 4.8.15.1; Stripe's `file_link_data[create]`): the field is written
    // as in a form, each name-value pair a part of its own, and its contentType ignored.
    if ((how.style !== undefined || how.explode !== undefined) && (isObject(field) || Array.isArray(field))) {
      const style = how.style ?? 'form';
      for (const [k, v] of queryPairs(name, field, { style, explode: how.explode ?? style === 'form' })) parts.push(partOf(decodeURIComponent(k), decodeURIComponent(v), {}));
      continue;
    }
    // An array is one part per item, unless its encoding asks for it as one JSON part.
    const items = Array.isArray(field) && !how.contentType ? field : [field];
    for (const item of items) parts.push(partOf(name, item, how));
  }
  // node:crypto loads a dozen modules: only for a multipart body, not for every command that may build one.
  const { createHash }: typeof import('node:crypto') = requireCommonJs('node:crypto');
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p.headers).update(p.bytes);
  let boundary = `school-${hash.digest('hex').slice(0, 32)}`;
  // A boundary is a line no part may hold: made longer until none does.
  const holds = (b: string) => parts.some((p) => Buffer.from(p.bytes).includes(`--${b}`));
  while (holds(boundary)) boundary += createHash('sha256').update(boundary).digest('hex').slice(0, 8);
  const chunks: Uint8Array[] = [];
  for (const p of parts) chunks.push(Buffer.from(`--${boundary}\r\n${p.headers}\r\n`), p.bytes, Buffer.from('\r\n'));
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), boundary };
}
