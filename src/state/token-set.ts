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
  return parsed;
}
