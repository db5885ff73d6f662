import { CliError, messageOf } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { assertSafeUrl } from '../http/transport.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';
import { fromOAuthError } from './oauth-errors.js';

export interface ServerInfo {
  /** The API origin (and path, if any) the user gave, without a trailing slash. */
  baseUrl: string;
  /** RFC 8707 resource identifier, from the protected-resource metadata. */
  resource?: string;
  as: AuthorizationServer;
}

/**
 * RFC 9728 protected-resource metadata names the authorization server; RFC 8414 metadata (OpenID
 * discovery as fallback) names every endpoint. The metadata is authoritative: nothing is guessed.
 */
export async function discover(http: HttpClient, baseUrl: string, signal?: AbortSignal): Promise<ServerInfo> {
  const oauth = await loadOAuth();
  const opts = requestOptions(oauth, http, signal);
  const resourceUrl = new URL(baseUrl);

  let issuer = new URL(baseUrl);
  let resource: string | undefined;
  const prmResponse = await oauth.resourceDiscoveryRequest(resourceUrl, opts);
  if (prmResponse.status === 200) {
    let prm: Awaited<ReturnType<typeof oauth.processResourceDiscoveryResponse>>;
    try {
      prm = await oauth.processResourceDiscoveryResponse(resourceUrl, prmResponse);
    } catch (err) {
      throw new CliError(`The protected-resource metadata of ${baseUrl} is not valid: ${messageOf(err)}.`, { code: 'discovery_failed', cause: err });
    }
    resource = prm.resource;
    const named = prm.authorization_servers?.[0];
    if (named) issuer = assertSafeUrl(named, 'authorization server (authorization_servers)', 'server');
  } else if (prmResponse.status !== 404) {
    const where = prmResponse.headers.get('location') ? ` (a redirect to ${prmResponse.headers.get('location')}, which is not followed)` : '';
    throw new CliError(`Discovery failed: the protected-resource metadata of ${baseUrl} answered HTTP ${prmResponse.status}${where}.`, { code: 'discovery_failed' });
  }

  let as: AuthorizationServer | undefined;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    const res = await oauth.discoveryRequest(issuer, { ...opts, algorithm });
    if (res.status === 404) continue;
    if (res.status !== 200) {
      // Redirects are not followed: metadata must come from the issuer itself.
      const where = res.headers.get('location') ? ` (a redirect to ${res.headers.get('location')}, which is not followed)` : '';
      throw new CliError(`Discovery failed: the authorization server metadata of ${issuer.origin} answered HTTP ${res.status}${where}.`, { code: 'discovery_failed' });
    }
    try {
      as = await oauth.processDiscoveryResponse(issuer, res);
    } catch (err) {
      const mapped = fromOAuthError(err);
      // A claimed issuer other than the one asked is refused as it is; other faults name the server.
      if (mapped instanceof CliError && mapped.code === 'discovery_failed') throw mapped;
      throw new CliError(`The authorization server metadata at ${issuer.origin} is not valid: ${messageOf(err)}.`, { code: 'discovery_failed', cause: err });
    }
    break;
  }
  if (!as) {
    throw new CliError(`No authorization server metadata found for ${issuer.href.replace(/\/$/, '')} (RFC 8414 and OpenID discovery both answered 404).`, {
      code: 'discovery_failed',
      hint: 'Check the base URL.',
    });
  }
  // Without S256 there is no protection for the code in transit: refuse rather than downgrade.
  if (!as.code_challenge_methods_supported?.includes('S256')) {
    throw new CliError(`The authorization server ${as.issuer} does not offer PKCE with S256; refusing to log in.`, { code: 'pkce_unsupported' });
  }
  for (const key of ['authorization_endpoint', 'token_endpoint'] as const) {
    if (!as[key]) throw new CliError(`The authorization server metadata has no ${key}.`, { code: 'discovery_failed' });
  }
  // Every endpoint we may use is checked now, naming the field, rather than failing later mid-login.
  for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'userinfo_endpoint', 'revocation_endpoint'] as const) {
    if (as[key] !== undefined) assertSafeUrl(String(as[key]), key, 'server');
  }
  return { baseUrl, resource, as };
}
