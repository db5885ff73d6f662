import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, oauthClient } from './client.js';
import { endpointStep } from './endpoint-auth.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';

/** What token introspection (RFC 7662) tells the client about its own access token; no secret. */
export interface TokenSubject {
  active: boolean;
  sub?: string;
  username?: string;
  scope?: string;
}

/**
 * Introspects the client's own access token, authenticated as the client registered, else as the
 * introspection endpoint's metadata asks. Undefined when the server has no introspection endpoint.
 */
export async function introspectOwnToken(http: HttpClient, as: AuthorizationServer, client: ClientIdentity, p: { accessToken: string; signal?: AbortSignal }): Promise<TokenSubject | undefined> {
  if (!as.introspection_endpoint) return undefined;
  const oauth = await loadOAuth();
  const methods = { endpoint: as.introspection_endpoint_auth_methods_supported, token: as.token_endpoint_auth_methods_supported };
  const answer = await endpointStep('introspection endpoint', client, methods, async (method) => {
    const res = await oauth.introspectionRequest(as, oauthClient(client), clientAuth(oauth, client, method), p.accessToken, {
      ...requestOptions(oauth, http, p.signal),
      additionalParameters: { token_type_hint: 'access_token' },
    });
    return oauth.processIntrospectionResponse(as, oauthClient(client), res);
  });
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return { active: answer.active === true, sub: text(answer.sub), username: text(answer.username), scope: text(answer.scope) };
}
