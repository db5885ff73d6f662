import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, endpointAuthMethod, oauthClient } from './client.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';
import { oauthStep } from './oauth-errors.js';

/** What token introspection (RFC 7662) tells the client about its own access token; no secret. */
export interface TokenSubject {
  active: boolean;
  sub?: string;
  username?: string;
  scope?: string;
}

/**
 * Introspects the client's own access token, authenticated as the introspection endpoint's
 * metadata asks. Undefined when the server has no introspection endpoint.
 */
export async function introspectOwnToken(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { accessToken: string; signal?: AbortSignal },
): Promise<TokenSubject | undefined> {
  if (!as.introspection_endpoint) return undefined;
  const oauth = await loadOAuth();
  const method = endpointAuthMethod(client, as.introspection_endpoint_auth_methods_supported, as.token_endpoint_auth_methods_supported);
  const answer = await oauthStep('introspection endpoint', async () => {
    const res = await oauth.introspectionRequest(as, oauthClient(client), clientAuth(oauth, client, method), p.accessToken, {
      ...requestOptions(oauth, http, p.signal),
      additionalParameters: { token_type_hint: 'access_token' },
    });
    return oauth.processIntrospectionResponse(as, oauthClient(client), res);
  });
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { active: answer.active === true, sub: text(answer.sub), username: text(answer.username), scope: text(answer.scope) };
}
