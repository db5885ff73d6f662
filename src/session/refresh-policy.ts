import type { TokenSet } from '../state/token-set.js';

/**
 * How early to refresh: a minute before expiry, but never more than half the token's lifetime,
 * so a short-lived token is not refreshed again right after it was obtained.
 */
export function refreshMarginSeconds(set: TokenSet): number {
  if (set.expiresAt === undefined) return 0;
  const lifetime = Math.max(0, set.expiresAt - set.obtainedAt);
  return Math.min(60, Math.floor(lifetime / 2));
}

export function needsRefresh(set: TokenSet, nowSeconds: number): boolean {
  if (set.expiresAt === undefined) return false;
  return set.expiresAt - nowSeconds <= refreshMarginSeconds(set);
}
