import type * as OAuthModule from 'oauth4webapi';
import type { TokenSet } from '../state/token-set.js';
import { registerSecret } from '../util/redact.js';
import type { ClientIdentity } from './client.js';

export type TokenResponse = OAuthModule.TokenEndpointResponse;

/** A token endpoint answer as the token set the CLI keeps. */
export function toTokenSet(
  res: TokenResponse,
  ctx: { issuer: string; client: ClientIdentity; resource?: string; nowSeconds: number; previous?: TokenSet; subject?: string },
): TokenSet {
  registerSecret(res.access_token);
  registerSecret(res.refresh_token);
  return {
    issuer: ctx.issuer,
    clientId: ctx.client.clientId,
    resource: ctx.resource,
    accessToken: res.access_token,
    tokenType: res.token_type ?? 'bearer',
    expiresAt: typeof res.expires_in === 'number' ? ctx.nowSeconds + res.expires_in : undefined,
    obtainedAt: ctx.nowSeconds,
    // Without rotation the server sends no new refresh token: the old one stays valid.
    refreshToken: res.refresh_token ?? ctx.previous?.refreshToken,
    scope: res.scope ?? ctx.previous?.scope,
    clientSecret: ctx.client.clientSecret,
    authMethod: ctx.client.clientSecret ? ctx.client.authMethod : undefined,
    subject: ctx.subject ?? ctx.previous?.subject,
  };
}
