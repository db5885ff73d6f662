/**
 * The one builder of an operation's request, for `school api`, `school mcp`'s operation tools and
 * the library: from the operation's shape (request-shape.ts), the values given and the media type
 * chosen, the request exactly as sent. Pure: the front-ends read files and standard input, and
 * hand over bytes (a FilePart for a multipart file field, `bytes` for a body of another media type).
 *
 * Where each rule lives: parameters by location and style in request/path-param.ts,
 * query-param.ts, header-param.ts; bodies in request/form-body.ts and multipart-body.ts (JSON is
 * its text, any other media type the bytes given); path segments and servers here.
 */
import { UsageError } from '../errors.js';
import { formBody } from './request/form-body.js';
import { cookiePairs, headerText } from './request/header-param.js';
import { multipartBody } from './request/multipart-body.js';
import { pathParamText } from './request/path-param.js';
import { queryPairs } from './request/query-param.js';
import { type MediaShape, type ParamShape, type RequestShape, sendableHeader } from './request-shape.js';

export { FilePart } from './request/multipart-body.js';

/** What a request's body is given as: a value (JSON, or the fields of a form), or bytes sent as they are. */
export type BodyInput = { value: unknown } | { bytes: Uint8Array };

export interface RequestValues {
  /** Each parameter's value, by `in:name` (`path:id`, `query:filter`); a value left out is not sent. */
  params: Readonly<Record<string, unknown>>;
  body?: BodyInput;
  /** The media type asked for (`--content-type`); else the first offered (the first made of fields, for fields). */
  contentType?: string;
}

export interface BuildOptions {
  /** The profile's base URL: the origin the token goes to. */
  baseUrl: string;
  /** True when no token is sent: a server on another origin may then be used. */
  anonymous?: boolean;
  /** How the front-end names a parameter to the person (`<course-id>`, a tool's property). */
  argName?: (param: ParamShape) => string;
}

export interface BuiltRequest {
  method: string;
  /** The path and query exactly as sent, relative to `server` (when set) or to the base URL. */
  path: string;
  /** An operation's own server (its `servers`), replacing the base URL; on the base URL's origin unless anonymous. */
  server?: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: Buffer;
}

export const ACCEPT = 'application/json, */*;q=0.5';

/** Media types compared as OpenAPI keys them: case aside, parameters and spaces aside. */
const bareType = (type: string) => type.split(';')[0].trim().toLowerCase();

/** The media type a body goes as: the one asked for, else the first offered (for fields, the first made of fields). */
export function chooseMedia(shape: Pick<RequestShape, 'media'>, asked: string | undefined, fields: boolean): MediaShape | undefined {
  if (asked !== undefined) {
    const found = shape.media.find((m) => m.type === asked.trim()) ?? shape.media.find((m) => bareType(m.type) === bareType(asked));
    if (!found) {
      const offered = shape.media.map((m) => m.type).join(', ');
      throw new UsageError(offered ? `--content-type ${asked.slice(0, 100)} is not offered: the operation takes ${offered}.` : '--content-type: the operation takes no request body.');
    }
    return found;
  }
  return (fields ? shape.media.find((m) => m.kind !== 'raw') : undefined) ?? shape.media[0];
}

const DOT_SEGMENT = new Set(['', '.', '..']);

/**
 * A segment as a server that normalizes URLs reads it: `%2e` is a dot to WHATWG's URL parser and
 * to RFC 3986 §6.2.2.2 (an encoded unreserved character is that character), so `%2e%2e` climbs
 * like `..`. Only the description's own text can hold it: a value's `%` is sent as `%25`.
 */
const asRead = (segment: string) => segment.replace(/%2e/gi, '.');

/**
 * The description's own text of a path (outside the parameters) as a URL carries it: what a URL
 * may not hold raw (a space, a control, a character beyond ASCII, `"<>\`{}`, as WHATWG's URL
 * parser encodes them) percent-encoded as UTF-8, and `\` too, which servers that normalize read
 * as `/`, so `\..\` would climb. What is already percent-encoded stays as it is.
 */
function literalText(text: string): string {
  // A `%` that starts no escape is one too (`100%`): sent as `%25`, never read as the start of one.
  return text.replace(/%(?![0-9A-Fa-f]{2})|[\u0000-\u0020\u007f-\u{10ffff}"<>\\`{}]/gu, (ch) => [...Buffer.from(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

function shownSegment(segment: string): string {
  return segment === '' ? 'empty' : `'${segment}'`;
}

/**
 * The path template filled in, each parameter its segment (or, `x-multi-segment`, its segments).
 * A segment a parameter leaves empty, `.` or `..` is refused: a server that normalizes URLs would
 * read it as the parent or the collection, so the request would act on something else.
 */
function fillTemplate(template: string, shape: RequestShape, params: Readonly<Record<string, unknown>>, argName: (p: ParamShape) => string): string {
  const byName = new Map(shape.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  const segments = template.split('/');
  return segments
    .map((segment) => {
      const used: ParamShape[] = [];
      // Placeholders, runs of the description's own text, and a lone `{`: every character is one of them.
      const filled = segment.replace(/\{([^{}]+)\}|[^{]+|\{/g, (whole, name: string | undefined) => {
        const param = name === undefined ? undefined : byName.get(name);
        if (!param) return literalText(whole);
        const value = params[`path:${name}`];
        if (value === undefined || value === null) throw new UsageError(`Missing ${argName(param)}: the operation's path needs it.`);
        used.push(param);
        return pathParamText(param, value);
      });
      if (!used.length) {
        // The description's own path climbing (`/courses/{id}/..`) would act on another resource than it names.
        // Servers that read path parameters (Tomcat, Jetty) drop what follows a `;`: `..;x` is `..` to them.
        const read = asRead(segment).split(';')[0];
        if (read === '.' || read === '..') throw new UsageError(`The description's path ${shape.path.slice(0, 200)} holds a '${read}' segment: not sent.`);
        return filled;
      }
      for (const raw of filled.split('/')) {
        const part = asRead(raw);
        if (DOT_SEGMENT.has(part)) {
          const named = used.map(argName).join(' and ');
          const value = used.length === 1 ? params[`path:${used[0].name}`] : undefined;
          const what = value === part ? shownSegment(part) : `a value making the path segment ${shownSegment(part)}`;
          throw new UsageError(`${named} cannot be ${what}: a path segment that is empty, '.' or '..' names another resource. Nothing was sent.`);
        }
      }
      return filled;
    })
    .join('/');
}

/**
 * The query a path key carries itself (`/export?filename={filename}`, `/search?query={query}`, as
 * some descriptions write it), never sent as braces: a path parameter's `{name}` is filled with its
 * value, encoded as a query value is; a pair that names a query parameter (`query={query}`), or
 * whose name is one given a value (`?view=fileinfo` with `--view`), is left to that parameter,
 * written once by its own style.
 */
function fillQueryTemplate(fixed: string, shape: RequestShape, params: Readonly<Record<string, unknown>>, argName: (p: ParamShape) => string): string {
  const pathParams = new Map(shape.parameters.filter((p) => p.in === 'path').map((p) => [p.name, p]));
  const queryNames = new Set(shape.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  const given = (name: string) => queryNames.has(name) && params[`query:${name}`] !== undefined;
  const decoded = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return text;
    }
  };
  const pairs = fixed.split('&').filter((pair) => {
    const at = pair.indexOf('=');
    const name = decoded(at < 0 ? pair : pair.slice(0, at));
    const placeholder = at < 0 ? undefined : /^\{([^{}]+)\}$/.exec(pair.slice(at + 1))?.[1];
    return !given(name) && !(placeholder !== undefined && queryNames.has(placeholder) && !pathParams.has(placeholder));
  });
  return pairs.join('&').replace(/\{([^{}]+)\}/g, (whole, name: string) => {
    const param = pathParams.get(name);
    if (!param) return whole;
    const value = params[`path:${name}`];
    if (value === undefined || value === null) throw new UsageError(`Missing ${argName(param)}: the operation's path needs it.`);
    return pathParamText({ ...param, multiSegment: false }, value);
  });
}

function splitTemplate(path: string): [string, string] {
  const withoutFragment = path.split('#')[0];
  const at = withoutFragment.indexOf('?');
  return at < 0 ? [withoutFragment, ''] : [withoutFragment.slice(0, at), withoutFragment.slice(at + 1)];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The server an operation of its own `servers` goes to: one on the base URL's origin (its path
 * used); else, with no token sent, the first (https, or http on a loopback host). The token goes
 * to the base URL's origin only: another origin with a token is refused.
 */
function serverOf(shape: RequestShape, options: BuildOptions): string | undefined {
  if (!shape.servers?.length) return undefined;
  const base = new URL(options.baseUrl);
  const urls: URL[] = [];
  for (const raw of shape.servers) {
    try {
      urls.push(new URL(raw, base));
    } catch {
      // A URL that does not parse is no server.
    }
  }
  const same = urls.find((u) => u.origin === base.origin);
  const chosen = same ?? urls[0];
  if (!chosen) return undefined;
  const clean = `${chosen.origin}${chosen.pathname.replace(/\/+$/, '')}`;
  if (same) return clean;
  const where = `${shape.method} ${shape.path.slice(0, 200)} is served by ${chosen.origin}`;
  if (!options.anonymous) {
    throw new UsageError(`${where}, not ${base.origin}: the token is sent to ${base.origin} only.`, { hint: 'With --anonymous it is sent there without a token.' });
  }
  if (chosen.protocol !== 'https:' && !(chosen.protocol === 'http:' && LOOPBACK.has(chosen.hostname))) throw new UsageError(`${where}: plain http is refused except on a loopback host.`);
  return clean;
}

function bodyOf(media: MediaShape, body: BodyInput): { bytes: Buffer; contentType: string } {
  if ('bytes' in body) {
    if (media.kind === 'form' || media.kind === 'multipart') throw new UsageError(`A ${media.type} body is made of fields: give them as flags, or a JSON object of them.`);
    // `*/*` names no type: bytes of no type said are application/octet-stream (RFC 9110 §8.3).
    return { bytes: Buffer.from(body.bytes), contentType: media.type === '*/*' ? 'application/octet-stream' : media.type };
  }
  switch (media.kind) {
    case 'json':
      // `*/*` takes anything: what is sent then is JSON, and says so.
      return { bytes: Buffer.from(JSON.stringify(body.value)), contentType: media.type === '*/*' ? 'application/json' : media.type };
    case 'form':
      return { bytes: Buffer.from(formBody(body.value, media.encoding)), contentType: media.type };
    case 'multipart': {
      const { body: bytes, boundary } = multipartBody(body.value, media.encoding);
      return { bytes, contentType: `${bareType(media.type)}; boundary=${boundary}` };
    }
    default:
      if (typeof body.value === 'string') return { bytes: Buffer.from(body.value), contentType: media.type };
      throw new UsageError(`A ${media.type} body is sent as it is: give it as a file (--input), not as fields.`);
  }
}

/** The request of an operation for the values given, exactly as it is to be sent. */
export function buildOperationRequest(shape: RequestShape, values: RequestValues, options: BuildOptions): BuiltRequest {
  const argName = options.argName ?? ((p: ParamShape) => `the ${p.in} parameter ${p.name}`);
  // A path key may carry a query of its own (`/search?kind=all`) and a fragment that tells two
  // operations apart (Box's `…/schema#update`): the query is sent first, the fragment never.
  const [template, fixedQuery] = splitTemplate(shape.path);
  const path = fillTemplate(template, shape, values.params, argName);
  // Placeholders filled first: the description's own text of the query is then written as a URL carries it.
  const ownQuery = fixedQuery && literalText(fillQueryTemplate(fixedQuery, shape, values.params, argName));
  const query: string[] = ownQuery ? [ownQuery] : [];
  const headers: Record<string, string> = { accept: ACCEPT };
  const cookies: string[] = [];
  for (const param of shape.parameters) {
    const value = values.params[`${param.in}:${param.name}`];
    if (value === undefined || param.in === 'path') continue;
    if (param.in === 'query') {
      for (const [k, v] of queryPairs(param.name, value, { ...param, json: Boolean(param.contentType) })) query.push(`${k}=${v}`);
    } else if (param.in === 'header') {
      // Never a credential or a header the client sets: whoever asks, the description cannot set them.
      if (!sendableHeader(param.name)) throw new UsageError(`The header ${param.name.slice(0, 100)} is set by the client, not by a parameter.`);
      headers[param.name.toLowerCase()] = headerText(param, value);
    } else cookies.push(...cookiePairs(param, value));
  }
  if (cookies.length) headers.cookie = cookies.join('; ');
  let body: Buffer | undefined;
  if (values.body) {
    const media = chooseMedia(shape, values.contentType, 'value' in values.body);
    if (!media) throw new UsageError(`${shape.method} ${shape.path.slice(0, 200)} takes no request body.`);
    const built = bodyOf(media, values.body);
    body = built.bytes;
    headers['content-type'] = built.contentType;
  }
  const server = serverOf(shape, options);
  return { method: shape.method, path: `${path}${query.length ? `?${query.join('&')}` : ''}`, ...(server ? { server } : {}), headers, ...(body ? { body } : {}) };
}
