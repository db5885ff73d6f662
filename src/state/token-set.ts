import { registerSecret } from '../util/redact.js';
import type { AuthMethod } from './config-file.js';
import { StateProblem } from './problems.js';

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
  /** How a confidential client presents its secret at the token endpoint. */
  authMethod?: AuthMethod;
  /** The `sub` of the ID token from login, which every userinfo answer must match. */
  subject?: string;
}

/** The longest token lifetime believed: a server's "valid for 1e300 seconds" is a year at most. */
export const MAX_LIFETIME_SECONDS = 365 * 24 * 3600;

/**
 * A token response's `expires_in` as a sane number of seconds: at most a year, never negative;
 * anything that is not a finite number (NaN, a string, 1e309) is "unknown".
 */
export function clampLifetime(expiresIn: unknown): number | undefined {
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn)) return undefined;
  return Math.floor(Math.min(Math.max(expiresIn, 0), MAX_LIFETIME_SECONDS));
}

// Seconds since the epoch a Date can show (year 275760); anything else is treated as unknown.
const MAX_EPOCH_SECONDS = 8.64e12;

/** A stored time in seconds since the epoch, or undefined when it could not be shown as a date. */
export function saneEpochSeconds(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= MAX_EPOCH_SECONDS ? Math.floor(value) : undefined;
}

export function serializeTokenSet(set: TokenSet): string {
  return JSON.stringify(set);
}

function isTokenSet(value: unknown): value is TokenSet {
  if (!value || typeof value !== 'object') return false;
  const v: { accessToken?: unknown; issuer?: unknown } = value;
  return typeof v.accessToken === 'string' && typeof v.issuer === 'string';
}

export function parseTokenSet(text: string, where: string): TokenSet {
  const hint = 'Run `school login` to replace them.';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StateProblem('corrupt', `The stored credentials in ${where} are corrupted.`, { hint });
  }
  if (!isTokenSet(parsed)) throw new StateProblem('corrupt', `The stored credentials in ${where} are incomplete.`, { hint });
  registerSecret(parsed.accessToken);
  registerSecret(parsed.refreshToken);
  registerSecret(parsed.clientSecret);
  // Written by an older version or by hand: a time that cannot be a date is unknown, not a crash later.
  const expiresAt = saneEpochSeconds(parsed.expiresAt);
  return {
    ...parsed,
    clientId: typeof parsed.clientId === 'string' ? parsed.clientId : '',
    tokenType: typeof parsed.tokenType === 'string' ? parsed.tokenType : 'bearer',
    expiresAt,
    obtainedAt: saneEpochSeconds(parsed.obtainedAt) ?? expiresAt ?? 0,
    refreshToken: typeof parsed.refreshToken === 'string' ? parsed.refreshToken : undefined,
    scope: typeof parsed.scope === 'string' ? parsed.scope : undefined,
    clientSecret: typeof parsed.clientSecret === 'string' ? parsed.clientSecret : undefined,
    subject: typeof parsed.subject === 'string' ? parsed.subject : undefined,
  };
}
