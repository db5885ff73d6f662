import type { HttpClient } from '../http/client.js';
import type { DpopKey, TokenSet } from '../types/tokens.js';
import { registerSecret } from '../util/redact.js';
import { type ClientIdentity, clientAuth, oauthClient, resourceParams } from './client.js';
import { dpopOption, dpopProver, withNonceRetry } from './dpop.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';
import { oauthStep } from './oauth-errors.js';
import { toTokenSet } from './token-response.js';

/** Seconds of clock difference with the server allowed when checking the ID token's `exp`, `iat` and `nbf`. */
export const ID_TOKEN_CLOCK_TOLERANCE_SECONDS = 60;

export interface ExchangeResult {
  tokens: TokenSet;
  /** The validated ID token's claims, when the server sent one. */
  idClaims?: Record<string, unknown>;
  /** Whether the answer carried a refresh token. */
  refreshTokenIssued: boolean;
  /** The granted scope as the server stated it (undefined: as asked, RFC 6749 §5.1). */
  grantedScope?: string;
}

async function carriesIdToken(answer: Response): Promise<boolean> {
  const body: unknown = await answer
    .clone()
    .json()
    .catch(() => undefined);
  return Boolean(body && typeof body === 'object' && 'id_token' in body && body.id_token !== undefined);
}

/**
 * The authorization code grant (RFC 6749 §4.1.3) with the PKCE verifier. An ID token, when one
 * comes, is validated by oauth4webapi: issuer, audience, expiry (with a small clock tolerance) and
 * the nonce of the request (OpenID Connect Core §3.1.3.7).
 */
export async function exchangeCode(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { params: URLSearchParams; redirectUri: string; codeVerifier: string; nonce?: string; resource?: string; nowSeconds: number; signal?: AbortSignal; dpopKey?: DpopKey },
): Promise<ExchangeResult> {
  const oauth = await loadOAuth();
  registerSecret(p.params.get('code'));
  const checkedClient = { ...oauthClient(client), [oauth.clockTolerance]: ID_TOKEN_CLOCK_TOLERANCE_SECONDS };
  const prover = p.dpopKey ? await dpopProver(p.dpopKey) : undefined;
  const res = await oauthStep('token endpoint', () =>
    withNonceRetry('token endpoint', prover, async () => {
      const answer = await oauth.authorizationCodeGrantRequest(as, checkedClient, clientAuth(oauth, client), p.params, p.redirectUri, p.codeVerifier, {
        ...requestOptions(oauth, http, p.signal),
        ...resourceParams(p.resource),
        ...dpopOption(prover),
      });
      // oauth4webapi requires an ID token whenever a nonce is expected. A server may leave `openid`
      // out of the grant (RFC 6749 §3.3) and send none; one that sends an ID token must have it
      // carry our nonce.
      const expectedNonce = p.nonce && (await carriesIdToken(answer)) ? p.nonce : oauth.expectNoNonce;
      return oauth.processAuthorizationCodeResponse(as, checkedClient, answer, { expectedNonce });
    }),
  );
  const idClaims: Record<string, unknown> | undefined = oauth.getValidatedIdTokenClaims(res);
  const subject = typeof idClaims?.sub === 'string' ? idClaims.sub : undefined;
  return {
    tokens: toTokenSet(res, { issuer: as.issuer, client, resource: p.resource, nowSeconds: p.nowSeconds, subject, dpopKey: p.dpopKey }),
    idClaims,
    refreshTokenIssued: typeof res.refresh_token === 'string',
    grantedScope: typeof res.scope === 'string' ? res.scope : undefined,
  };
}
