import type { HttpClient } from '../http/client.js';
import { type ClientIdentity, clientAuth, oauthClient } from './client.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';

/**
 * Whether the server still knows a cached client: a token request with a made-up code is answered
 * `invalid_client` for an unknown client and `invalid_grant` (or similar) for a known one. This
 * avoids sending the user to an authorization page that can only show an error.
 */
export async function clientStillKnown(http: HttpClient, as: AuthorizationServer, client: ClientIdentity, redirectUri: string, signal?: AbortSignal): Promise<boolean> {
  const oauth = await loadOAuth();
  try {
    const params = { code: `probe-${oauth.generateRandomState()}`, redirect_uri: redirectUri, code_verifier: oauth.generateRandomCodeVerifier() };
    const res = await oauth.genericTokenEndpointRequest(as, oauthClient(client), clientAuth(oauth, client), 'authorization_code', params, requestOptions(oauth, http, signal));
    if (res.status < 400) return true;
    const body: unknown = await res.json().catch(() => ({}));
    return !(body && typeof body === 'object' && 'error' in body && body.error === 'invalid_client');
  } catch {
    return true; // cannot tell: let the real flow find out
  }
}
