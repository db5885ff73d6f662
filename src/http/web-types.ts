/**
 * The two WHATWG fetch types oauth4webapi works with, Headers and Response, for answers already
 * read in full by our HTTP client. Node's own classes come with its built-in fetch (undici), whose
 * first use costs about 20 ms of start-up: more than everything else a `school token` that must
 * refresh first does. These hold the body in memory and implement what a caller of the standard
 * classes relies on: the same header normalisation and validation, a body read once, clone().
 * test/unit/web-types.test.ts runs them side by side with Node's classes.
 */

// RFC 9110 §5.6.2: a field name is a token.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Fetch "normalize": strip leading and trailing HTTP whitespace (tab, space, CR, LF).
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

type HeadersInit = Record<string, string> | Iterable<readonly [string, string]>;

/** The standard Headers: names lower-cased, values of a repeated name joined with ", ", iterated in name order. */
export class PlainHeaders {
  readonly #fields = new Map<string, string[]>();

  constructor(init?: HeadersInit) {
    if (init == null) return;
    // Another Headers (ours, the standard one, or the other build's copy of ours) iterates as pairs.
    if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (!pair || typeof pair === 'string' || pair.length !== 2) throw new TypeError('Headers: each entry must be a [name, value] pair.');
        this.append(pair[0], pair[1]);
      }
    } else for (const [name, value] of Object.entries(init)) this.append(name, value);
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  append(name: string, value: string): void {
    const [key, normalized] = checked(name, value);
    const values = this.#fields.get(key);
    if (values) values.push(normalized);
    else this.#fields.set(key, [normalized]);
  }

  set(name: string, value: string): void {
    const [key, normalized] = checked(name, value);
    this.#fields.set(key, [normalized]);
  }

  get(name: string): string | null {
    return this.#fields.get(checkedName(name))?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.#fields.has(checkedName(name));
  }

  delete(name: string): void {
    this.#fields.delete(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#fields.get('set-cookie') ?? [])];
  }

  forEach(callback: (value: string, name: string, headers: PlainHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#fields.keys()].sort()) {
      const values = this.#fields.get(name) as string[];
      // set-cookie is the one field whose values are never joined (fetch's "sort and combine").
      if (name === 'set-cookie') for (const value of values) yield [name, value];
      else yield [name, values.join(', ')];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

function checkedName(name: string): string {
  const key = String(name);
  if (!TOKEN.test(key)) throw new TypeError(`Headers: "${key.slice(0, 40)}" is not a valid header name.`);
  return key.toLowerCase();
}

function checked(name: string, value: string): [string, string] {
  const key = checkedName(name);
  const normalized = String(value).replace(EDGE_WHITESPACE, '');
  if (/[\0\r\n]/.test(normalized)) throw new TypeError(`Headers: the value of "${key}" holds a NUL, CR or LF.`);
  // A header value is a ByteString: a character past U+00FF cannot be sent as one byte.
  if (/[^\0-\xff]/.test(normalized)) throw new TypeError(`Headers: the value of "${key}" holds a character past U+00FF.`);
  return [key, normalized];
}

export interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

/** Statuses whose responses can carry no body (fetch's "null body status"). */
export const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/**
 * The standard Response for a body already in memory: read once (text, json, arrayBuffer), or
 * cloned before it is read. `body` is always null, as for a response without a body: nothing
 * here streams. So `response.body?.cancel()` (which oauth4webapi calls on an OAuth error answer)
 * leaves `bodyUsed` false where the standard one would turn it true; the answer stays readable.
 */
export class BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: PlainHeaders;
  readonly url = '';
  readonly redirected = false;
  readonly type = 'default';
  readonly body = null;
  #bytes: Uint8Array | null;
  #used = false;

  constructor(body?: Uint8Array | string | null, init: ResponseInit = {}) {
    const status = unsignedShort(init.status ?? 200);
    if (status < 200 || status > 599) throw new RangeError(`Response: status ${status} is outside 200-599.`);
    if (body != null && NULL_BODY_STATUS.has(status)) throw new TypeError(`Response: a ${status} response cannot have a body.`);
    this.status = status;
    this.statusText = init.statusText ?? '';
    this.headers = new PlainHeaders(init.headers);
    if (typeof body === 'string') {
      this.#bytes = new TextEncoder().encode(body);
      if (!this.headers.has('content-type')) this.headers.set('content-type', 'text/plain;charset=UTF-8');
    } else this.#bytes = body ?? null;
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#consume();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  /** UTF-8, a leading byte order mark dropped and malformed bytes replaced, as fetch decodes. */
  async text(): Promise<string> {
    return new TextDecoder().decode(this.#consume());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  clone(): BufferedResponse {
    if (this.#used) throw new TypeError('Response.clone: the body has already been read.');
    return new BufferedResponse(this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
  }

  #consume(): Uint8Array {
    if (this.#used) throw new TypeError('Response: the body has already been read.');
    // A response without a body reads as empty and stays unread, as the standard's does.
    if (this.#bytes === null) return new Uint8Array(0);
    this.#used = true;
    return this.#bytes;
  }
}

/** WebIDL's conversion to an unsigned short, as the standard applies it to a status: 200.5 is 200. */
function unsignedShort(value: number): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  const wrapped = Math.trunc(n) % 65536;
  return wrapped < 0 ? wrapped + 65536 : wrapped;
}

/**
 * Whether a value is a Response, ours or the standard one, by its tag as oauth4webapi checks, so
 * that the test does not load Node's fetch to compare against.
 */
export function isResponse(value: unknown): value is BufferedResponse {
  return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Response]';
}
