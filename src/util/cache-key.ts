/** A file name for a cache entry keyed by a URL (the crypto module is loaded only when needed). */
export async function cacheKey(url: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}
