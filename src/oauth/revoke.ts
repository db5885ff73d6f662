import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, oauthClient } from './client.js';
import { endpointStep } from './endpoint-auth.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';

/** Token revocation (RFC 7009), authenticated as the client registered, else as the endpoint's metadata asks. */
export async function revokeToken(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { token: string; hint: 'access_token' | 'refresh_token'; signal?: AbortSignal },
): Promise<void> {
  const oauth = await loadOAuth();
  const methods = { endpoint: as.revocation_endpoint_auth_methods_supported, token: as.token_endpoint_auth_methods_supported };
  await endpointStep('revocation endpoint', client, methods, async (method) => {
    const res = await oauth.revocationRequest(as, oauthClient(client), clientAuth(oauth, client, method), p.token, {
      ...requestOptions(oauth, http, p.signal),
      additionalParameters: { token_type_hint: p.hint },
    });
    await oauth.processRevocationResponse(res);
  });
}
