import { CliError, messageOf } from '../errors.js';
import { registerSecret } from '../util/redact.js';
import { type ClientIdentity, oauthClient } from './client.js';
import { type AuthorizationServer, loadOAuth } from './oauth4webapi.js';
import { ServerRefusal, fromOAuthError } from './oauth-errors.js';

export interface AuthorizationRequest {
  url: string;
  state: string;
  codeVerifier: string;
  /** Sent with `openid`; the ID token must carry it back (OpenID Connect Core §3.1.2.1). */
  nonce?: string;
}

/** The authorization URL of a code flow with PKCE S256, and the state and verifier to check it by. */
export async function authorizationRequest(
  as: AuthorizationServer,
  p: { clientId: string; redirectUri: string; scopes: string[]; resource?: string; dpopJkt?: string },
): Promise<AuthorizationRequest> {
  const oauth = await loadOAuth();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  registerSecret(codeVerifier);
  const state = oauth.generateRandomState();
  const url = new URL(String(as.authorization_endpoint));
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('redirect_uri', p.redirectUri);
  // An empty scope parameter is never sent: no scope at all asks for the server's default (RFC 6749 §3.3).
  if (p.scopes.length) url.searchParams.set('scope', p.scopes.join(' '));
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', state);
  // PKCE already binds the code to this client; the nonce binds the ID token to this request, and
  // some providers require it whenever `openid` is asked.
  const nonce = p.scopes.includes('openid') ? oauth.generateRandomNonce() : undefined;
  if (nonce) url.searchParams.set('nonce', nonce);
  // OpenID Connect Core §11: offline access is asked with prompt=consent; providers such as
  // oidc-provider drop `offline_access` (and so the refresh token) without it.
  if (nonce && p.scopes.includes('offline_access')) url.searchParams.set('prompt', 'consent');
  if (p.resource) url.searchParams.set('resource', p.resource);
  // RFC 9449 §10: the code is bound to the key the tokens will be bound to; no other key can redeem it.
  if (p.dpopJkt) url.searchParams.set('dpop_jkt', p.dpopJkt);
  return { url: url.toString(), state, codeVerifier, nonce };
}

/**
 * Checks `state` and `iss` (RFC 9207) of the redirect and hands back its parameters. An error the
 * server sent is a ServerRefusal; a response that fails a check is `invalid_callback`.
 */
export async function validateCallback(as: AuthorizationServer, client: ClientIdentity, callback: URL, expectedState: string): Promise<URLSearchParams> {
  const oauth = await loadOAuth();
  try {
    return oauth.validateAuthResponse(as, oauthClient(client), callback, expectedState);
  } catch (err) {
    const mapped = fromOAuthError(err);
    if (mapped instanceof ServerRefusal) throw mapped;
    throw new CliError(`Login refused: the sign-in response failed a security check (${messageOf(err)}). Nothing was stored.`, {
      code: 'invalid_callback',
      cause: err,
    });
  }
}
