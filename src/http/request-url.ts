import { UsageError } from '../errors.js';

export const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The request URL: a path is joined to the base URL's path and stays on its origin (`//host`,
 * `/\\host` or `..` cannot leave it); an absolute URL is taken as it is.
 */
export function targetUrl(baseUrl: string, path: string): URL {
  if (ABSOLUTE_URL.test(path)) return new URL(path);
  const base = new URL(baseUrl);
  const q = path.search(/[?#]/);
  const [pathPart, rest] = q < 0 ? [path, ''] : [path.slice(0, q), path.slice(q)];
  const url = new URL(base.origin);
  url.pathname = `${base.pathname.replace(/\/+$/, '')}/${pathPart.replace(/^[/\\]+/, '')}`;
  url.search = new URL(`http://x/${rest}`).search; // a fragment is never sent
  if (url.origin !== base.origin) throw new UsageError(`The path ${path} leaves ${base.origin}.`);
  return url;
}

/**
 * Where a request goes: `url` for its origin and for display, `path` the path and query exactly as
 * sent. They differ only where a path parameter is made of dots: its segment is sent as `%2E%2E`,
 * which the URL parser would turn back into a `..` that climbs out of the operation's path.
 */
export interface RequestTarget {
  url: URL;
  path: string;
}

/** The target of a URL as the URL parser left it. */
export function plainTarget(url: URL): RequestTarget {
  return { url, path: `${url.pathname}${url.search}` };
}

/**
 * A path parameter as exactly one segment: `/` and `\` percent-encoded (so are `%`, `?` and `#`),
 * and a value made only of dots (`.`, `..`) sent as `%2E`s, never as a dot-segment.
 */
export function pathSegment(value: string): string {
  const encoded = encodeURIComponent(value);
  return /^\.+$/.test(value) ? encoded.replace(/\./g, '%2E') : encoded;
}

/** A path template (`/api/courses/{id}`) with each `{name}` replaced by its value as one segment. */
export function fillPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^{}]+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? pathSegment(params[name]!) : whole));
}

/**
 * The one builder of an operation's request URL, for `call`, `school api` and the MCP tools: the
 * template filled (each path parameter one segment) under the base URL's path, then the query.
 */
export function operationTarget(baseUrl: string, template: string, params: Readonly<Record<string, string>>, query?: URLSearchParams): RequestTarget {
  const search = query?.toString();
  return underBase(baseUrl, `${fillPath(template, params)}${search ? `?${search}` : ''}`);
}

/**
 * A path and query already built as they are to be sent (an operation's, see operationTarget, or
 * one whose `..` were resolved), under the base URL's path, its segments left as they are.
 */
export function underBase(baseUrl: string, pathAndQuery: string): RequestTarget {
  const base = new URL(baseUrl);
  if (!pathAndQuery.startsWith('/') || pathAndQuery.startsWith('//') || /[#\s]/.test(pathAndQuery)) throw new UsageError(`Not a path of the API: ${pathAndQuery.slice(0, 80)}`);
  const path = `${base.pathname.replace(/\/+$/, '')}${pathAndQuery}`;
  // The origin is the base URL's whatever the path holds; the URL parser's view of it is for display.
  const url = new URL(path, base.origin);
  return { url, path };
}
