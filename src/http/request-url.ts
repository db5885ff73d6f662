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
