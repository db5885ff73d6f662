import type * as OAuthModule from 'oauth4webapi';
import { CliError } from '../errors.js';
import { type DpopKey, type TokenSet, canonicalTokenType, clampLifetime } from '../types/tokens.js';
import { registerSecret } from '../util/redact.js';
import type { ClientIdentity } from './client.js';

export type TokenResponse = OAuthModule.TokenEndpointResponse;

/**
 * Tokens travel in an HTTP header and are printed by `school token`: visible ASCII only (RFC 6750's
 * b64token and every real token fit), so a server cannot hand the terminal an escape sequence this way.
 */
function assertPlainToken(value: string | undefined, what: string): void {
  if (value !== undefined && !/^[\x21-\x7e]+$/.test(value)) {
    throw new CliError(`The server issued ${what} with characters an HTTP header cannot carry; refusing it.`, { code: 'invalid_token_response' });
  }
}

/** A token endpoint answer as the token set the CLI keeps. */
export function toTokenSet(
  res: TokenResponse,
  ctx: { issuer: string; client: ClientIdentity; resource?: string; nowSeconds: number; previous?: TokenSet; subject?: string; dpopKey?: DpopKey },
): TokenSet {
  registerSecret(res.access_token);
  registerSecret(res.refresh_token);
  assertPlainToken(res.access_token, 'an access token');
  assertPlainToken(res.refresh_token, 'a refresh token');
  // A DPoP token is usable only with a proof of the key it is bound to; none was offered.
  if (res.token_type?.toLowerCase() === 'dpop' && !ctx.dpopKey) {
    throw new CliError('The server issued a DPoP-bound token to a request that proved no key; it could never be used, refusing it.', { code: 'protocol_error' });
  }
  const lifetime = clampLifetime(res.expires_in);
  return {
    issuer: ctx.issuer,
    clientId: ctx.client.clientId,
    resource: ctx.resource,
    accessToken: res.access_token,
    tokenType: canonicalTokenType(res.token_type ?? 'bearer'),
    expiresAt: lifetime === undefined ? undefined : ctx.nowSeconds + lifetime,
    obtainedAt: ctx.nowSeconds,
    // Without rotation the server sends no new refresh token: the old one stays valid.
    refreshToken: res.refresh_token ?? ctx.previous?.refreshToken,
    scope: res.scope ?? ctx.previous?.scope,
    clientSecret: ctx.client.clientSecret,
    authMethod: ctx.client.clientSecret ? ctx.client.authMethod : undefined,
    subject: ctx.subject ?? ctx.previous?.subject,
    // Kept even when the server answered a Bearer token: a public client's refresh token is bound
    // to the key whenever the request carried a proof (RFC 9449 §5), and later proofs cost nothing.
    ...(ctx.dpopKey ? { dpopKey: ctx.dpopKey } : {}),
  };
}
