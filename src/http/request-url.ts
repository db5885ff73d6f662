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
 * sent (an operation's, built by api/request-builder.ts), which the URL parser is never given to
 * re-encode or normalize.
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
 * A path and query already built as they are to be sent (an operation's, see
 * api/request-builder.ts, or one whose `..` were resolved), under the base URL's path, its
 * segments left as they are.
 */
export function underBase(baseUrl: string, pathAndQuery: string): RequestTarget {
  const base = new URL(baseUrl);
  if (!pathAndQuery.startsWith('/') || pathAndQuery.startsWith('//') || /[#\s]/.test(pathAndQuery)) throw new UsageError(`Not a path of the API: ${pathAndQuery.slice(0, 80)}`);
  const path = `${base.pathname.replace(/\/+$/, '')}${pathAndQuery}`;
  // The origin is the base URL's whatever the path holds; the URL parser's view of it is for display.
  const url = new URL(path, base.origin);
  return { url, path };
}
