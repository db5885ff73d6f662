import type { HttpClient } from '../http/client.js';
import type { TokenSet } from '../state/token-set.js';
import { registerSecret } from '../util/redact.js';
import { type ClientIdentity, clientAuth, oauthClient, resourceParams } from './client.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';
import { oauthStep } from './oauth-errors.js';
import { toTokenSet } from './token-response.js';

export interface ExchangeResult {
  tokens: TokenSet;
  /** The validated ID token's claims, when the server sent one. */
  idClaims?: Record<string, unknown>;
}

/** The authorization code grant (RFC 6749 §4.1.3) with the PKCE verifier. */
export async function exchangeCode(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { params: URLSearchParams; redirectUri: string; codeVerifier: string; resource?: string; nowSeconds: number; signal?: AbortSignal },
): Promise<ExchangeResult> {
  const oauth = await loadOAuth();
  registerSecret(p.params.get('code'));
  const res = await oauthStep(async () => {
    const answer = await oauth.authorizationCodeGrantRequest(as, oauthClient(client), clientAuth(oauth, client), p.params, p.redirectUri, p.codeVerifier, {
      ...requestOptions(oauth, http, p.signal),
      ...resourceParams(p.resource),
    });
    return oauth.processAuthorizationCodeResponse(as, oauthClient(client), answer);
  });
  const idClaims: Record<string, unknown> | undefined = oauth.getValidatedIdTokenClaims(res);
  const subject = typeof idClaims?.sub === 'string' ? idClaims.sub : undefined;
  return { tokens: toTokenSet(res, { issuer: as.issuer, client, resource: p.resource, nowSeconds: p.nowSeconds, subject }), idClaims };
}
