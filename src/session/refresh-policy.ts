import type { TokenSet } from '../types/tokens.js';

/**
 * How early to refresh: a minute before expiry, but never more than half the token's lifetime,
 * so a short-lived token is not refreshed again right after it was obtained.
 */
export function refreshMarginSeconds(set: Pick<TokenSet, 'expiresAt' | 'obtainedAt'>): number {
  if (set.expiresAt === undefined) return 0;
  const lifetime = Math.max(0, set.expiresAt - set.obtainedAt);
  return Math.min(60, Math.floor(lifetime / 2));
}

/**
 * Whether to refresh before handing the token out: it is about to expire, or it would not stay
 * valid for the `minTtlSeconds` the caller asked for (`school token --min-ttl`).
 */
export function needsRefresh(set: Pick<TokenSet, 'expiresAt' | 'obtainedAt'>, nowSeconds: number, minTtlSeconds = 0): boolean {
  if (set.expiresAt === undefined) return false;
  const remaining = set.expiresAt - nowSeconds;
  return remaining <= refreshMarginSeconds(set) || !lastsAtLeast(set, nowSeconds, minTtlSeconds);
}

/**
 * Whether a token stays valid at least `minTtlSeconds` more; a token without a known expiry is
 * taken as valid. Times are whole seconds, so a token counted N seconds from expiry may have a
 * little less than N left: a promise of N seconds needs more than N counted.
 */
export function lastsAtLeast(set: Pick<TokenSet, 'expiresAt'>, nowSeconds: number, minTtlSeconds: number): boolean {
  if (set.expiresAt === undefined || minTtlSeconds <= 0) return true;
  return set.expiresAt - nowSeconds > minTtlSeconds;
}
