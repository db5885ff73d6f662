/**
 * Where an API's description comes from: `<base URL>/openapi.json`, unless `--description
 * <url|file>`, SCHOOL_API_DESCRIPTION or the profile (which remembers the last `--description`
 * given for its base URL) names another place. A URL is https, or http to this machine only; a
 * file is kept as an absolute path, so a later run from another directory reads the same file.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';
import { assertSafeUrl } from '../http/transport.js';
import { printable } from '../util/printable.js';

export interface DescriptionSource {
  kind: 'url' | 'file';
  /** The URL as normalized, or the file's absolute path. */
  location: string;
}

/** Where a description named on the command line, in the environment or in the profile lies. */
export function descriptionSource(raw: string, cwd: string = process.cwd()): DescriptionSource {
  const text = raw.trim();
  if (!text) throw new UsageError('--description needs a URL or a file, e.g. --description ./openapi.yaml.', { code: 'usage' });
  if (/^file:/i.test(text)) {
    try {
      return { kind: 'file', location: fileURLToPath(text) };
    } catch {
      throw new UsageError(`The API description "${printable(text.slice(0, 200))}" is not a usable file: URL.`, { code: 'usage' });
    }
  }
  // Anything with a scheme is a URL; a Windows drive letter (`C:\…`) is a file.
  if (/^[a-z][a-z0-9+.-]+:/i.test(text) && !/^[a-z]:[\\/]/i.test(text)) {
    const url = assertSafeUrl(text, 'API description URL');
    if (url.username || url.password) throw new UsageError('The API description URL must not carry a user name or password.', { code: 'insecure_url' });
    url.hash = '';
    return { kind: 'url', location: url.href };
  }
  return { kind: 'file', location: isAbsolute(text) ? text : resolve(cwd, text) };
}

/** The URL a base URL's description is fetched from when nothing names another. */
export function defaultDescriptionUrl(baseUrl: string): string {
  return `${baseUrl}/openapi.json`;
}

/**
 * What the cache of a description is kept under: the base URL alone for its own
 * `/openapi.json`, else the base URL and the source, so two descriptions of one server (or one
 * description used for two servers) never share an entry.
 */
export function descriptionCacheKey(baseUrl: string, source: DescriptionSource | undefined): string {
  if (!source || (source.kind === 'url' && source.location === defaultDescriptionUrl(baseUrl))) return baseUrl;
  return `${baseUrl}#description=${encodeURIComponent(`${source.kind}:${source.location}`)}`;
}
