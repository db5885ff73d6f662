import type { AuthMethod } from '../config/config.js';
import { type TokenSet, clampLifetime } from '../credentials/token-set.js';
import type { HttpClient } from '../http/client.js';
import { CliError } from '../errors.js';
import { registerSecret } from '../util/redact.js';
import { type AuthorizationServer, type OAuth, loadOAuth, requestOptions } from './oauth.js';

export interface ClientIdentity {
  clientId: string;
  authMethod: AuthMethod;
  clientSecret?: string;
}

/** The client a token set was issued to: confidential when it carries a client secret. */
export function clientOf(set: Pick<TokenSet, 'clientId' | 'clientSecret'>, fallbackSecret?: string): ClientIdentity {
  const clientSecret = set.clientSecret ?? fallbackSecret;
  return { clientId: set.clientId, authMethod: clientSecret ? 'client_secret_post' : 'none', clientSecret };
}

function oauthClient(c: ClientIdentity) {
  return { client_id: c.clientId, token_endpoint_auth_method: c.authMethod };
}

function clientAuth(oauth: OAuth, c: ClientIdentity) {
  return c.authMethod === 'client_secret_post' && c.clientSecret ? oauth.ClientSecretPost(c.clientSecret) : oauth.None();
}

function resourceParams(resource: string | undefined) {
  return resource ? { additionalParameters: { resource } } : {};
}

type TokenResponse = Awaited<ReturnType<OAuth['processAuthorizationCodeResponse']>>;

/**
 * Tokens travel in an HTTP header and are printed by `school token`: visible ASCII only (RFC 6750's
 * b64token and every real token fit), so a server cannot hand the terminal an escape sequence this way.
 */
function assertPlainToken(value: string | undefined, what: string): void {
  if (value !== undefined && !/^[\x21-\x7e]+$/.test(value)) {
    throw new CliError(`The server issued ${what} with characters an HTTP header cannot carry; refusing it.`, { code: 'invalid_token_response' });
  }
}

export function toTokenSet(
  res: TokenResponse,
  ctx: { issuer: string; client: ClientIdentity; resource?: string; nowSeconds: number; previous?: TokenSet },
): TokenSet {
  registerSecret(res.access_token);
  registerSecret(res.refresh_token);
  assertPlainToken(res.access_token, 'an access token');
  assertPlainToken(res.refresh_token, 'a refresh token');
  const lifetime = clampLifetime(res.expires_in);
  return {
    issuer: ctx.issuer,
    clientId: ctx.client.clientId,
    resource: ctx.resource,
    accessToken: res.access_token,
    tokenType: res.token_type ?? 'bearer',
    expiresAt: lifetime === undefined ? undefined : ctx.nowSeconds + lifetime,
    obtainedAt: ctx.nowSeconds,
    // Without rotation the server sends no new refresh token: the old one stays valid.
    refreshToken: res.refresh_token ?? ctx.previous?.refreshToken,
    scope: res.scope ?? ctx.previous?.scope,
    clientSecret: ctx.client.clientSecret,
  };
}

/** Checks `state` and `iss` (RFC 9207) of the redirect and hands back its parameters. */
export async function validateCallback(as: AuthorizationServer, client: ClientIdentity, callback: URL, expectedState: string): Promise<URLSearchParams> {
  const oauth = await loadOAuth();
  return oauth.validateAuthResponse(as, oauthClient(client), callback, expectedState);
}

export async function exchangeCode(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { params: URLSearchParams; redirectUri: string; codeVerifier: string; resource?: string; signal?: AbortSignal },
): Promise<TokenResponse> {
  const oauth = await loadOAuth();
  registerSecret(p.params.get('code'));
  const res = await oauth.authorizationCodeGrantRequest(as, oauthClient(client), clientAuth(oauth, client), p.params, p.redirectUri, p.codeVerifier, {
    ...requestOptions(oauth, http, p.signal),
    ...resourceParams(p.resource),
  });
  return oauth.processAuthorizationCodeResponse(as, oauthClient(client), res);
}

export async function refreshGrant(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { refreshToken: string; resource?: string; timeoutMs?: number },
): Promise<TokenResponse> {
  const oauth = await loadOAuth();
  const res = await oauth.refreshTokenGrantRequest(as, oauthClient(client), clientAuth(oauth, client), p.refreshToken, {
    // Deliberately not abortable: see refreshLocked.
    ...requestOptions(oauth, http, undefined, p.timeoutMs),
    ...resourceParams(p.resource),
  });
  return oauth.processRefreshTokenResponse(as, oauthClient(client), res);
}

export async function revokeToken(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { token: string; hint: 'access_token' | 'refresh_token'; signal?: AbortSignal },
): Promise<void> {
  const oauth = await loadOAuth();
  const res = await oauth.revocationRequest(as, oauthClient(client), clientAuth(oauth, client), p.token, {
    ...requestOptions(oauth, http, p.signal),
    additionalParameters: { token_type_hint: p.hint },
  });
  await oauth.processRevocationResponse(res);
}

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
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    return body.error !== 'invalid_client';
  } catch {
    return true; // cannot tell: let the real flow find out
  }
}
