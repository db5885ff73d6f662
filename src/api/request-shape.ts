/**
 * What the request builder needs of an operation, and nothing else: how each parameter is
 * serialized (location, style, explode, allowReserved, `x-multi-segment`, a `content` media
 * type), every media type its body may be sent as (with the `encoding` of form and multipart
 * fields), and its `servers`. Read from the document by the operation model (operations.ts) and
 * kept in the cached detail line, so `school api` builds a request from the cache alone and
 * `school mcp` from the same shape.
 */

export type ParamStyle = 'simple' | 'label' | 'matrix' | 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';

export interface ParamShape {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  /** OpenAPI's default where the description names none: path and header `simple`, query and cookie `form`. */
  style: ParamStyle;
  /** OpenAPI's default where the description says nothing: true for `form`, false for every other style. */
  explode: boolean;
  /** Query only: reserved characters (`/`, `:`, `,`, …) left as they are. */
  allowReserved?: boolean;
  /** Path only (`x-multi-segment: true`): the value may hold `/` between segments. */
  multiSegment?: boolean;
  /** A parameter given by `content` rather than a schema: its one value in that media type (JSON). */
  contentType?: string;
}

/** How one field of a form or multipart body is written (its Encoding Object). */
export interface EncodingShape {
  contentType?: string;
  style?: ParamStyle;
  explode?: boolean;
  allowReserved?: boolean;
}

/** What a media type's body is made from: a JSON value, form fields, multipart parts, or bytes as given. */
export type MediaKind = 'json' | 'form' | 'multipart' | 'raw';

export interface MediaShape {
  type: string;
  kind: MediaKind;
  /** By field name. */
  encoding?: Record<string, EncodingShape>;
}

export interface RequestShape {
  /** Upper case. */
  method: string;
  /** The path template, as the description writes it. */
  path: string;
  /** The parameters the request may carry (path ones in any order: the template decides where they go). */
  parameters: ParamShape[];
  /** Every media type the body may be sent as, the description's first first; none without a body. */
  media: MediaShape[];
  /** The operation's (or its path item's) servers; none: the base URL. */
  servers?: string[];
}

/** Headers a description may not set through a parameter: the client sets them, or they carry credentials. */
const OWN_HEADERS: ReadonlySet<string> = new Set(['authorization', 'dpop', 'cookie', 'host', 'content-length', 'content-type', 'accept', 'transfer-encoding', 'connection', 'proxy-authorization']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A header parameter a request may carry: a valid name, and none the client sets itself. */
export function sendableHeader(name: string): boolean {
  return HEADER_NAME.test(name) && !OWN_HEADERS.has(name.toLowerCase());
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

/** The kind of a media type: JSON (`application/json`, every `+json`, and `*\/*` which takes it), forms, or raw bytes. */
export function mediaKind(type: string): MediaKind {
  const t = type.trim().toLowerCase();
  if (JSON_TYPE.test(t) || t === '*/*') return 'json';
  if (/^application\/x-www-form-urlencoded\s*(?:;|$)/.test(t)) return 'form';
  if (/^multipart\/form-data\s*(?:;|$)/.test(t)) return 'multipart';
  return 'raw';
}

/** The media type whose schema gives the body's fields (flags, checks): the first one made of fields, if any. */
export function fieldMedia<T extends MediaShape>(media: readonly T[]): T | undefined {
  return media.find((m) => m.kind !== 'raw');
}

/** The shape of an operation of the model, as the builder reads it and the cache keeps it. */
export function requestShapeOf(op: { method: string; path: string; parameters: readonly ParamShape[]; body?: { media: readonly MediaShape[] }; servers?: string[] }): RequestShape {
  return {
    method: op.method,
    path: op.path,
    parameters: op.parameters.map(({ name, in: location, style, explode, allowReserved, multiSegment, contentType }) => ({
      name,
      in: location,
      style,
      explode,
      ...(allowReserved ? { allowReserved } : {}),
      ...(multiSegment ? { multiSegment } : {}),
      ...(contentType ? { contentType } : {}),
    })),
    media: (op.body?.media ?? []).map(({ type, kind, encoding }) => ({ type, kind, ...(encoding ? { encoding } : {}) })),
    ...(op.servers ? { servers: op.servers } : {}),
  };
}
