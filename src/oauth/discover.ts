import { CliError, messageOf } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { assertSafeUrl } from '../http/transport.js';
import { type AuthorizationServer, type OAuth, loadOAuth, requestOptions } from './oauth4webapi.js';
import { fromOAuthError } from './oauth-errors.js';
import type { ServerInfo } from '../types/server.js';
import { checkPushedRequestMetadata } from './pushed-authorization.js';

/** An answer whose body is not JSON at all (an HTML page, plain text), as oauth4webapi reports it. */
function isNotJson(oauth: OAuth, err: unknown): boolean {
  return err instanceof oauth.OperationProcessingError && (err.code === oauth.RESPONSE_IS_NOT_JSON || err.code === oauth.PARSE_ERROR);
}

export type { ServerInfo };

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
  // RFC 9728 is optional: a 404, a refusal (401, 403, 405 from a gateway) or a page that is not
  // JSON at all (a web app's catch-all route) all mean the API publishes no such document.
  const noDocument = (status: number) => status >= 400 && status < 500;
  if (prmResponse.status === 200) {
    let prm: Awaited<ReturnType<typeof oauth.processResourceDiscoveryResponse>> | undefined;
    try {
      prm = await oauth.processResourceDiscoveryResponse(resourceUrl, prmResponse);
    } catch (err) {
      if (!isNotJson(oauth, err)) throw new CliError(`The protected-resource metadata of ${baseUrl} is not valid: ${messageOf(err)}.`, { code: 'discovery_failed', cause: err });
    }
    resource = prm?.resource;
    const named = prm?.authorization_servers?.[0];
    if (named) issuer = assertSafeUrl(named, 'authorization server (authorization_servers)', 'server');
  } else if (!noDocument(prmResponse.status)) {
    const where = prmResponse.headers.get('location') ? ` (a redirect to ${prmResponse.headers.get('location')}, which is not followed)` : '';
    throw new CliError(`Discovery failed: the protected-resource metadata of ${baseUrl} answered HTTP ${prmResponse.status}${where}.`, { code: 'discovery_failed' });
  }

  // RFC 8414 first, OpenID discovery second. A document that is missing, refused or unusable at
  // one URL is looked for at the other; the first problem is reported if neither gives one.
  let as: AuthorizationServer | undefined;
  let problem: CliError | undefined;
  for (const algorithm of ['oauth2', 'oidc'] as const) {
    const res = await oauth.discoveryRequest(issuer, { ...opts, algorithm });
    if (res.status === 404) continue;
    if (res.status !== 200) {
      // Redirects are not followed: metadata must come from the issuer itself.
      const where = res.headers.get('location') ? ` (a redirect to ${res.headers.get('location')}, which is not followed)` : '';
      problem ??= new CliError(`Discovery failed: the authorization server metadata of ${issuer.origin} answered HTTP ${res.status}${where}.`, { code: 'discovery_failed' });
      continue;
    }
    try {
      as = await oauth.processDiscoveryResponse(issuer, res);
    } catch (err) {
      const mapped = fromOAuthError(err);
      // A claimed issuer other than the one asked is refused at once: never looked past.
      if (mapped instanceof CliError && mapped.code === 'discovery_failed') throw mapped;
      const what = isNotJson(oauth, err) ? 'is not JSON' : `is not valid: ${messageOf(err)}`;
      problem ??= new CliError(`The authorization server metadata at ${issuer.origin} ${what}.`, { code: 'discovery_failed', cause: err });
      continue;
    }
    break;
  }
  if (!as && problem) throw problem;
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
  checkPushedRequestMetadata(as);
  return { baseUrl, resource, as };
}
