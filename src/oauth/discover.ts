import { CliError, messageOf } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { assertSafeUrl } from '../http/transport.js';
import { fetchFor } from '../http/fetch-adapter.js';
import { isPlainScope } from '../util/plain-name.js';
import { type AuthorizationServer, type OAuth, asStandardResponse, loadOAuth, requestOptions } from './oauth4webapi.js';
import { parseChallenges } from './challenge.js';
import { fromOAuthError } from './oauth-errors.js';
import type { SeenChallenge, ServerInfo } from '../types/server.js';
import { checkPushedRequestMetadata } from './pushed-authorization.js';
import { shellWord } from '../util/login-command.js';

/** An answer whose body is not JSON at all (an HTML page, plain text), as oauth4webapi reports it. */
function isNotJson(oauth: OAuth, err: unknown): boolean {
  return err instanceof oauth.OperationProcessingError && (err.code === oauth.RESPONSE_IS_NOT_JSON || err.code === oauth.PARSE_ERROR);
}

export type { ServerInfo };
type ResourceFound = NonNullable<ServerInfo['resourceFound']>;

type ResourceMetadata = Awaited<ReturnType<OAuth['processResourceDiscoveryResponse']>>;

/** Protected-resource metadata found, and where (doctor reports it). */
interface FoundResource {
  prm: ResourceMetadata;
  foundAt: ResourceFound;
  /** The scopes the challenge that named the document asked for. */
  challengeScopes?: string[];
}

/** How an answer that is a redirect is described: redirects are never followed for metadata. */
function answerOfRedirect(res: Response): string {
  return res.headers.get('location') ? ` (a redirect to ${res.headers.get('location')}, which is not followed)` : '';
}

/**
 * Reads a protected-resource metadata answer with oauth4webapi, which checks its `resource` against
 * the identifier it was fetched for (RFC 9728 §3.3). Undefined when the address has no such
 * document: a 404, a refusal (401, 403, 405 from a gateway) or a page that is not JSON at all (a
 * web app's catch-all route). A document for another resource is refused outright, never looked
 * past: RFC 9728 forbids using it, and a document that names another resource is exactly what an
 * attacker who can plant a file would serve.
 */
async function readResourceMetadata(oauth: OAuth, expected: URL, res: Response, where: string): Promise<ResourceMetadata | undefined> {
  if (res.status >= 400 && res.status < 500) return undefined;
  if (res.status !== 200) {
    throw new CliError(`Discovery failed: the protected-resource metadata at ${where} answered HTTP ${res.status}${answerOfRedirect(res)}.`, { code: 'discovery_failed' });
  }
  try {
    return await oauth.processResourceDiscoveryResponse(expected, res);
  } catch (err) {
    if (isNotJson(oauth, err)) return undefined;
    throw new CliError(`The protected-resource metadata at ${where} is not valid for ${expected.href.replace(/\/$/, '')}: ${messageOf(err)}.`, { code: 'discovery_failed', cause: err });
  }
}

/** Where discovery looked, for the message of a discovery that found nothing. */
type Tried = string[];

/**
 * The protected-resource metadata of a base URL (RFC 9728): at the path-scoped address first
 * (`/.well-known/oauth-protected-resource/<path>`), then, for a base URL with a path, at the
 * origin's; then, where neither has one, at the address a challenge of the API named (one seen
 * before by `call`, `school api`, `school mcp` or the library, remembered for this base URL), else
 * through the challenge of one request without a token to the base URL (§5.1). The `resource` of
 * a document a challenge named must be the base URL itself (§3.3).
 */
async function findResourceMetadata(oauth: OAuth, http: HttpClient, baseUrl: string, seen: DiscoveryHints, tried: Tried): Promise<FoundResource | undefined> {
  const { signal } = seen;
  const opts = requestOptions(oauth, http, signal);
  const base = new URL(baseUrl);
  const candidates: Array<[URL, ResourceFound]> = [[base, base.pathname === '/' ? 'origin' : 'path']];
  if (base.pathname !== '/') candidates.push([new URL(base.origin), 'origin']);
  for (const [identifier, foundAt] of candidates) {
    const res = await oauth.resourceDiscoveryRequest(identifier, opts);
    const where = `${identifier.origin}/.well-known/oauth-protected-resource${identifier.pathname === '/' ? '' : identifier.pathname}`;
    tried.push(where);
    const prm = await readResourceMetadata(oauth, identifier, res, where);
    if (prm) return { prm, foundAt };
  }
  if (seen.challenge?.resourceMetadata) return namedResourceMetadata(oauth, http, base, { metadataUrl: seen.challenge.resourceMetadata, scope: seen.challenge.scope ?? [], signal }, tried);
  return challengedResourceMetadata(oauth, http, base, signal, tried);
}

/** The document at the address a challenge named, checked as RFC 9728 §3.3 asks: its `resource` must be the base URL the request was for. */
async function namedResourceMetadata(oauth: OAuth, http: HttpClient, base: URL, named: { metadataUrl: string; scope: string[]; signal?: AbortSignal }, tried: Tried): Promise<FoundResource> {
  const url = assertSafeUrl(named.metadataUrl, 'protected-resource metadata (resource_metadata)', 'server');
  tried.push(url.href);
  const res = asStandardResponse(await fetchFor(http)(url.href, { method: 'GET', headers: { accept: 'application/json' }, signal: named.signal }));
  const prm = await readResourceMetadata(oauth, base, res, url.href);
  if (!prm) {
    throw new CliError(`Discovery failed: the challenge of ${base.href.replace(/\/$/, '')} names protected-resource metadata at ${url.href}, which answered HTTP ${res.status} without it.`, {
      code: 'discovery_failed',
    });
  }
  const challengeScopes = named.scope.filter(isPlainScope);
  return { prm, foundAt: 'challenge', ...(challengeScopes.length ? { challengeScopes } : {}) };
}

/** §5.1: the `resource_metadata` a challenge to a request without a token names, checked as §3.3 requires. */
async function challengedResourceMetadata(oauth: OAuth, http: HttpClient, base: URL, signal: AbortSignal | undefined, tried: Tried): Promise<FoundResource | undefined> {
  const fetchIt = fetchFor(http);
  let answer: Awaited<ReturnType<typeof fetchIt>>;
  tried.push(`a challenge to GET ${base.href}`);
  try {
    answer = await fetchIt(base.href, { method: 'GET', headers: { accept: 'application/json' }, signal });
  } catch (err) {
    // A page too large to read, or none at all: no challenge to follow.
    if (signal?.aborted) throw err;
    return undefined;
  }
  if (answer.status !== 401) return undefined;
  const challenges = await parseChallenges(answer.headers.get('www-authenticate') ?? undefined);
  const named = challenges.find((c) => (c.scheme === 'bearer' || c.scheme === 'dpop') && typeof c.parameters.resource_metadata === 'string');
  const metadataUrl = named?.parameters.resource_metadata;
  if (!named || !metadataUrl) return undefined;
  return namedResourceMetadata(oauth, http, base, { metadataUrl, scope: (named.parameters.scope ?? '').split(' '), signal }, tried);
}

/** What discovery may start from besides the base URL. */
export interface DiscoveryHints {
  /** A challenge the API answered a request for this base URL with (RFC 9728 §5.1), remembered since. */
  challenge?: SeenChallenge;
  signal?: AbortSignal;
}

/** The address of an authorization server's metadata document of one form, as a message names it. */
function metadataAddress(issuer: URL, form: 'oauth2' | 'oidc' | 'oidc-inserted'): string {
  const path = issuer.pathname.replace(/\/$/, '');
  if (form === 'oauth2') return `${issuer.origin}/.well-known/oauth-authorization-server${path}`;
  if (form === 'oidc') return `${issuer.origin}${path}/.well-known/openid-configuration`;
  return `${issuer.origin}/.well-known/openid-configuration${path}`;
}

/**
 * What to do when nothing was found: the addresses tried, and, where no resource metadata was
 * found, that an API which names its metadata only in a challenge shows it to a request: one
 * `school call` to the API (the method that needs a login) lets the next login follow it.
 */
function noMetadataHint(baseUrl: string, tried: Tried, resourceFound: boolean): string {
  const lines = [`Tried: ${[...new Set(tried)].join(', ')}.`];
  if (!resourceFound) {
    lines.push(
      `Check the base URL. An API that names its metadata only in the challenge of a request (RFC 9728 §5.1) shows it to \`school call\`: run the request that needs a login (e.g. \`school call --base-url ${shellWord(baseUrl)} -X POST /the/path\`), then the login it names.`,
    );
  } else lines.push('Check the base URL.');
  return lines.join('\n');
}

/** Whether the resource accepts DPoP-bound tokens, from its RFC 9728 metadata (§2: the two DPoP fields). */
function resourceDpopOf(prm: ResourceMetadata): ServerInfo['resourceDpop'] {
  const algs = Array.isArray(prm.dpop_signing_alg_values_supported) ? prm.dpop_signing_alg_values_supported.filter((a): a is string => typeof a === 'string') : undefined;
  const required = prm.dpop_bound_access_tokens_required === true;
  if (!algs && !required) return undefined;
  return { ...(algs ? { algs } : {}), required };
}

/**
 * RFC 8414 first, OpenID discovery second (and, for an issuer with a path, OpenID's form of path
 * insertion third). A document that is missing, refused or unusable at one URL is looked for at
 * the next; the first problem is reported if none gives one. Undefined when every one answered
 * 404, or, for an issuer only guessed from the base URL (`guessed`), any 4xx: an API's
 * authentication in front of its own paths answers 401 there, which says the metadata is not there.
 */
async function authorizationServerMetadata(
  oauth: OAuth,
  http: HttpClient,
  issuer: URL,
  opts: ReturnType<typeof requestOptions>,
  at: { guessed: boolean; tried: Tried },
): Promise<AuthorizationServer | undefined> {
  const { guessed } = at;
  let problem: CliError | undefined;
  // An issuer with a path (`https://as.example/tenant1`) may publish its OpenID metadata with the
  // path after the well-known segment as well (`/.well-known/openid-configuration/tenant1`), the
  // form RFC 8414 §5 describes for OpenID metadata: looked at last.
  const forms: Array<'oauth2' | 'oidc' | 'oidc-inserted'> = issuer.pathname === '/' ? ['oauth2', 'oidc'] : ['oauth2', 'oidc', 'oidc-inserted'];
  for (const algorithm of forms) {
    at.tried.push(metadataAddress(issuer, algorithm));
    const res =
      algorithm === 'oidc-inserted'
        ? asStandardResponse(
            await fetchFor(http)(`${issuer.origin}/.well-known/openid-configuration${issuer.pathname.replace(/\/$/, '')}`, {
              method: 'GET',
              headers: { accept: 'application/json' },
              signal: opts.signal,
            }),
          )
        : await oauth.discoveryRequest(issuer, { ...opts, algorithm });
    if (res.status === 404 || (guessed && res.status >= 400 && res.status < 500)) continue;
    if (res.status !== 200) {
      // Redirects are not followed: metadata must come from the issuer itself.
      problem ??= new CliError(`Discovery failed: the authorization server metadata of ${issuer.origin} answered HTTP ${res.status}${answerOfRedirect(res)}.`, { code: 'discovery_failed' });
      continue;
    }
    try {
      return await oauth.processDiscoveryResponse(issuer, res);
    } catch (err) {
      const mapped = fromOAuthError(err);
      // A claimed issuer other than the one asked is refused at once: never looked past.
      if (mapped instanceof CliError && mapped.code === 'discovery_failed') throw mapped;
      const what = isNotJson(oauth, err) ? 'is not JSON' : `is not valid: ${messageOf(err)}`;
      problem ??= new CliError(`The authorization server metadata at ${issuer.origin} ${what}.`, { code: 'discovery_failed', cause: err });
    }
  }
  if (problem) throw problem;
  return undefined;
}

/**
 * RFC 9728 protected-resource metadata names the authorization server; RFC 8414 metadata (OpenID
 * discovery as fallback) names every endpoint. The metadata is authoritative: nothing is guessed.
 */
export async function discover(http: HttpClient, baseUrl: string, signal?: AbortSignal, hints: Omit<DiscoveryHints, 'signal'> = {}): Promise<ServerInfo> {
  const oauth = await loadOAuth();
  const opts = requestOptions(oauth, http, signal);
  const tried: Tried = [];

  const found = await findResourceMetadata(oauth, http, baseUrl, { ...hints, signal }, tried);
  let issuer = new URL(baseUrl);
  const prm = found?.prm;
  const named = prm?.authorization_servers?.[0];
  if (named) issuer = assertSafeUrl(named, 'authorization server (authorization_servers)', 'server');
  const resourceScopes = Array.isArray(prm?.scopes_supported) ? prm.scopes_supported.filter((s): s is string => typeof s === 'string') : undefined;
  const resourceDpop = prm ? resourceDpopOf(prm) : undefined;
  const resourceInfo: Partial<ServerInfo> = {
    ...(prm ? { resource: prm.resource } : {}),
    ...(found ? { resourceFound: found.foundAt } : {}),
    ...(resourceScopes?.length ? { resourceScopes } : {}),
    ...(found?.challengeScopes ? { challengeScopes: found.challengeScopes } : {}),
    ...(resourceDpop ? { resourceDpop } : {}),
  };

  // Without protected-resource metadata the base URL is taken for the issuer; an API under a path
  // (`https://host/school`) may have its authorization server at the origin, looked at second.
  let as = await authorizationServerMetadata(oauth, http, issuer, opts, { guessed: !named, tried });
  const base = new URL(baseUrl);
  if (!as && !named && base.pathname !== '/') {
    issuer = new URL(base.origin);
    as = await authorizationServerMetadata(oauth, http, issuer, opts, { guessed: true, tried });
  }
  if (!as) {
    throw new CliError(`No authorization server metadata found for ${issuer.href.replace(/\/$/, '')} (neither RFC 8414 nor OpenID discovery has a document there).`, {
      code: 'discovery_failed',
      hint: noMetadataHint(baseUrl, tried, Boolean(found)),
    });
  }
  // Without S256 there is no protection for the code in transit: refuse rather than downgrade.
  // An omitted list says nothing (RFC 8414 §2): S256 is used, and a server without it refuses the
  // authorization request itself. A list that leaves S256 out is refused before the browser opens.
  if (Array.isArray(as.code_challenge_methods_supported) && !as.code_challenge_methods_supported.includes('S256')) {
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
  return { baseUrl, ...resourceInfo, as };
}
