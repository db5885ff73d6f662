/** How the CLI authenticates as a client (RFC 7591 §2 names): public, or with a secret in the body or a Basic header. */
export type AuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

const AUTH_METHODS: readonly AuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];

export function isAuthMethod(value: unknown): value is AuthMethod {
  return AUTH_METHODS.some((m) => m === value);
}

/**
 * A DPoP key pair (RFC 9449) as kept with the tokens bound to it: the private JWK of an ES256 key,
 * whose `d` is a secret like the tokens; the public half is `x` and `y`.
 */
export interface DpopKey {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
}

export function isDpopKey(value: unknown): value is DpopKey {
  if (!value || typeof value !== 'object') return false;
  const v: Partial<Record<keyof DpopKey, unknown>> = value;
  return v.kty === 'EC' && v.crv === 'P-256' && [v.x, v.y, v.d].every((part) => typeof part === 'string' && /^[A-Za-z0-9_-]{43}$/.test(part));
}

/** RFC 9449 §5: a token of type DPoP is usable only with a proof of the key it is bound to. */
export function isDpopBound(set: Pick<TokenSet, 'tokenType' | 'dpopKey'>): set is TokenSet & { dpopKey: DpopKey } {
  return set.tokenType.toLowerCase() === 'dpop' && set.dpopKey !== undefined;
}

/**
 * The token type as shown and stored: "DPoP" as RFC 9449 spells it; any other as the server's
 * answer gave it, lower-cased ("bearer", as `token --json` has always said). Token types are
 * case-insensitive (RFC 6749 §5.1).
 */
export function canonicalTokenType(tokenType: string): string {
  const lower = tokenType.toLowerCase();
  return lower === 'dpop' ? 'DPoP' : lower;
}

/** The token type `token --json` and `status` show: "DPoP" for a token sent with proofs, else as the server gave it. */
export function shownTokenType(set: Pick<TokenSet, 'tokenType' | 'dpopKey'>): string {
  return isDpopBound(set) ? 'DPoP' : canonicalTokenType(set.tokenType);
}

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
  /**
   * The key the tokens are bound to (DPoP), kept in the same entry so that a refresh, which writes
   * the entry under the profile's lock, can never separate tokens from their key.
   */
  dpopKey?: DpopKey;
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
