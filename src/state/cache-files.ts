import { join } from 'node:path';

/**
 * A file name for the cache entry of a URL: its host (cut short), for whoever looks in the
 * directory, and a 32-bit FNV-1a hash of the whole URL to tell apart URLs of one host. Not a
 * cryptographic hash: loading node:crypto would cost a refresh more than its whole metadata
 * lookup, and a collision costs only a miss: every entry records its base URL, which a reader checks.
 */
function cacheKey(url: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < url.length; i++) {
    hash ^= url.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  let host = 'url';
  try {
    host = new URL(url).host.replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 64);
  } catch {
    // Not a URL: the hash alone names it.
  }
  return `${host}-${hash.toString(16).padStart(8, '0')}`;
}

/** The cached authorization server metadata of a base URL. */
export function serverCacheFile(cacheDir: string, baseUrl: string): string {
  return join(cacheDir, 'servers', `${cacheKey(baseUrl)}.json`);
}

/** The cached API description (/openapi.json) of a base URL. */
export function openapiCacheFile(cacheDir: string, baseUrl: string): string {
  return join(cacheDir, 'openapi', `${cacheKey(baseUrl)}.json`);
}

/** The compact index of a base URL's API description (see src/api/api-index.ts). */
export function openapiIndexFile(cacheDir: string, baseUrl: string): string {
  return join(cacheDir, 'openapi', `${cacheKey(baseUrl)}.index.json`);
}

/** One generation of the detail file of a base URL's API description. */
export function openapiDetailFile(cacheDir: string, baseUrl: string, generation: string): string {
  return join(cacheDir, 'openapi', `${cacheKey(baseUrl)}.${generation}.detail.jsonl`);
}
