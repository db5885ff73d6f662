import type { HttpClient } from '../http/client.js';
import type { TokenSet } from '../types/tokens.js';
import { type ClientIdentity, clientAuth, oauthClient, resourceParams } from './client.js';
import { dpopOption, dpopProver, withNonceRetry } from './dpop.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';
import { oauthStep } from './oauth-errors.js';
import { toTokenSet } from './token-response.js';

/**
 * The refresh token grant (RFC 6749 §6). Deliberately not abortable: once sent, a rotating refresh
 * cannot be taken back, so neither Ctrl-C nor a short timeout may cut it off before the answer is kept.
 */
export async function refreshGrant(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { current: TokenSet & { refreshToken: string }; nowSeconds: number; timeoutMs: number },
): Promise<TokenSet> {
  const oauth = await loadOAuth();
  // Tokens bound to a key are renewed with a proof of it (RFC 9449 §5): the new ones stay bound to it.
  const prover = p.current.dpopKey ? await dpopProver(p.current.dpopKey) : undefined;
  const res = await oauthStep('token endpoint', () =>
    withNonceRetry('token endpoint', prover, async () => {
      const answer = await oauth.refreshTokenGrantRequest(as, oauthClient(client), clientAuth(oauth, client), p.current.refreshToken, {
        ...requestOptions(oauth, http, undefined, p.timeoutMs),
        ...resourceParams(p.current.resource),
        ...dpopOption(prover),
      });
      return oauth.processRefreshTokenResponse(as, oauthClient(client), answer);
    }),
  );
  const next = toTokenSet(res, { issuer: p.current.issuer, client, resource: p.current.resource, nowSeconds: p.nowSeconds, previous: p.current, dpopKey: p.current.dpopKey });
  // A secret that came from the environment is not copied into the stored set.
  if (!p.current.clientSecret) {
    delete next.clientSecret;
    delete next.authMethod;
  }
  return next;
}
