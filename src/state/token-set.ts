import { registerSecret } from '../util/redact.js';
import { type TokenSet, isDpopKey } from '../types/tokens.js';
import { StateProblem } from './problems.js';
import { loginCommandText } from '../util/login-command.js';

export { type TokenSet, MAX_LIFETIME_SECONDS, clampLifetime } from '../types/tokens.js';

// Seconds since the epoch a Date can show (year 275760); anything else is treated as unknown.
const MAX_EPOCH_SECONDS = 8.64e12;

/** A stored time in seconds since the epoch, or undefined when it could not be shown as a date. */
function saneEpochSeconds(value: unknown): number | undefined {
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

export function parseTokenSet(text: string, where: string, login?: { profile: string; baseUrl?: string }): TokenSet {
  const hint = `Log in again to replace them:\n${loginCommandText(login)}`;
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
  const dpopKey = isDpopKey(parsed.dpopKey) ? parsed.dpopKey : undefined;
  registerSecret(dpopKey?.d);
  // Edited by hand or damaged: a time that cannot be a date is unknown, not a crash later.
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
    // A key that is not one (edited by hand, damaged) is dropped: a bound token then fails at the server, visibly.
    dpopKey,
  };
}
