import { CliError } from '../errors.js';
import { registerSecret } from '../util/redact.js';

/** The secrets of one profile, stored as one JSON entry. It names the issuer it came from. */
export interface TokenSet {
  issuer: string;
  clientId: string;
  resource?: string;
  accessToken: string;
  tokenType: string;
  /** Seconds since the epoch. */
  expiresAt?: number;
  /** Seconds since the epoch, when the access token was obtained. */
  obtainedAt: number;
  refreshToken?: string;
  scope?: string;
  clientSecret?: string;
}

export function serializeTokenSet(set: TokenSet): string {
  return JSON.stringify(set);
}

export function parseTokenSet(text: string, where: string): TokenSet {
  let parsed: Partial<TokenSet>;
  try {
    parsed = JSON.parse(text) as Partial<TokenSet>;
  } catch {
    throw new CliError(`The stored credentials in ${where} are corrupted.`, {
      code: 'corrupt_store',
      exitCode: 4,
      hint: 'Run `school login` to replace them.',
    });
  }
  if (!parsed || typeof parsed.accessToken !== 'string' || typeof parsed.issuer !== 'string') {
    throw new CliError(`The stored credentials in ${where} are incomplete.`, {
      code: 'corrupt_store',
      exitCode: 4,
      hint: 'Run `school login` to replace them.',
    });
  }
  registerSecret(parsed.accessToken);
  registerSecret(parsed.refreshToken);
  registerSecret(parsed.clientSecret);
  return parsed as TokenSet;
}

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
