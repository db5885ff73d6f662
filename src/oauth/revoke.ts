import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, oauthClient } from './client.js';
import { endpointStep } from './endpoint-auth.js';
import type { DpopKey } from '../types/tokens.js';
import { dpopProver, withNonceRetry } from './dpop.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';

/**
 * Token revocation (RFC 7009), authenticated as the client registered, else as the endpoint's
 * metadata asks. Tokens bound to a key go with a proof of it: a server may want one before it lets
 * a public client end a bound token.
 */
export async function revokeToken(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { token: string; hint: 'access_token' | 'refresh_token'; signal?: AbortSignal; dpopKey?: DpopKey },
): Promise<void> {
  const oauth = await loadOAuth();
  const methods = { endpoint: as.revocation_endpoint_auth_methods_supported, token: as.token_endpoint_auth_methods_supported };
  const prover = p.dpopKey ? await dpopProver(p.dpopKey) : undefined;
  const url = new URL(String(as.revocation_endpoint));
  await endpointStep('revocation endpoint', client, methods, (method) =>
    withNonceRetry('revocation endpoint', prover, async () => {
      const res = await oauth.revocationRequest(as, oauthClient(client), clientAuth(oauth, client, method), p.token, {
        ...requestOptions(oauth, http, p.signal),
        ...(prover ? { headers: { dpop: await prover.proof('POST', url) } } : {}),
        additionalParameters: { token_type_hint: p.hint },
      });
      // oauth4webapi keeps the nonces of the requests it signs itself; this proof is ours.
      prover?.keepNonce(url, res.headers.get('dpop-nonce') ?? undefined);
      await oauth.processRevocationResponse(res);
    }),
  );
}
