/** How the CLI authenticates as a client (RFC 7591 §2 names): public, or with a secret in the body or a Basic header. */
export type AuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

export const AUTH_METHODS: readonly AuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];

export function isAuthMethod(value: unknown): value is AuthMethod {
  return AUTH_METHODS.some((m) => m === value);
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
