import { join } from 'node:path';
import { requireCommonJs } from '../util/require.js';

/** A file name for a cache entry keyed by a URL (the crypto module is loaded only when needed). */
async function cacheKey(url: string): Promise<string> {
  const { createHash }: typeof import('node:crypto') = requireCommonJs('node:crypto');
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

/** The cached authorization server metadata of a base URL. */
export async function serverCacheFile(cacheDir: string, baseUrl: string): Promise<string> {
  return join(cacheDir, 'servers', `${await cacheKey(baseUrl)}.json`);
}

/** The cached API description (/openapi.json) of a base URL. */
export async function openapiCacheFile(cacheDir: string, baseUrl: string): Promise<string> {
  return join(cacheDir, 'openapi', `${await cacheKey(baseUrl)}.json`);
}
