import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, endpointAuthMethod, oauthClient } from './client.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';
import { oauthStep } from './oauth-errors.js';

/** Token revocation (RFC 7009), authenticated as the revocation endpoint's metadata asks. */
export async function revokeToken(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { token: string; hint: 'access_token' | 'refresh_token'; signal?: AbortSignal },
): Promise<void> {
  const oauth = await loadOAuth();
  const method = endpointAuthMethod(client, as.revocation_endpoint_auth_methods_supported, as.token_endpoint_auth_methods_supported);
  await oauthStep('revocation endpoint', async () => {
    const res = await oauth.revocationRequest(as, oauthClient(client), clientAuth(oauth, client, method), p.token, {
      ...requestOptions(oauth, http, p.signal),
      additionalParameters: { token_type_hint: p.hint },
    });
    await oauth.processRevocationResponse(res);
  });
}
