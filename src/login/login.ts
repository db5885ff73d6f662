import { fetchOpenApi } from '../api/openapi.js';
import { type Deps, nowSeconds } from '../deps.js';
import { CliError, UsageError } from '../errors.js';
import { assertSafeUrl } from '../http/transport.js';
import { authorizationRequest, validateCallback } from '../oauth/authorize.js';
import { type AuthMethodChoice, type ClientIdentity, chooseAuthMethod, clientOf } from '../oauth/client.js';
import { type ServerInfo, discover } from '../oauth/discover.js';
import { offersDeviceGrant } from '../oauth/device-authorization.js';
import { type ExchangeResult, exchangeCode } from '../oauth/exchange.js';
import { introspectOwnToken } from '../oauth/introspect.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';
import { pushAuthorizationRequest, usesPushedRequests } from '../oauth/pushed-authorization.js';
import { clientStillKnown } from '../oauth/probe-client.js';
import { registerClient } from '../oauth/register.js';
import { revokeToken } from '../oauth/revoke.js';
import { requestUserInfo } from '../oauth/userinfo.js';
import { profileLockName } from '../session/refresh.js';
import { serverFor } from '../session/server.js';
import type { ClientRegistration, IdentitySource, Profile } from '../state/config-file.js';
import type { CredentialStore } from '../state/credential-store.js';
import type { PendingLogin } from '../state/pending-login.js';
import { saveRegistrationToken } from '../state/registration-token.js';
import type { TokenSet } from '../state/token-set.js';
import { describeUser } from '../ui/user.js';
import { printable } from '../util/printable.js';
import { checkScopes, requestedScopes, withheldScopes } from './scopes.js';
import { chooseStore } from './store-choice.js';

export const CALLBACK_PATH = '/callback';

export interface LoginRequest {
  profile: string;
  baseUrl: string;
  scopes?: string[];
  /** How long the prepared login stays valid. */
  timeoutSeconds: number;
  confidential: boolean;
  insecureStorage: boolean;
  /** A Client ID Metadata Document URL, used as client_id where the server supports it. */
  clientMetadataUrl?: string;
  /** The command line that repeats this login with other scopes, for the "did you mean" hint. */
  retryCommand?: (scopes: string[]) => string;
  /** A device authorization grant (RFC 8628): the client must be registered for it. */
  device?: boolean;
}

export interface LoginHooks {
  /** Messages for the user; the orchestrator writes nothing itself. */
  notify(text: string): void;
  /**
   * Starts receiving the redirect and says where: on the port of the cached registration's
   * redirect URI when given and free, so that no new registration is needed.
   */
  listen(cachedRedirectUri: string | undefined): Promise<{ redirectUri: string; listenerPid?: number }>;
}

export interface LoginResult {
  profile: Profile;
  /** Who signed in, for "Logged in as …"; undefined when the server does not say. */
  user?: string;
  /** Things the user should know about the login, one sentence each (scopes withheld, a userinfo answer refused). */
  warnings: string[];
  /** Where the secrets went, for messages. */
  location: string;
}

/** The client to log in as: a metadata document URL, the cached registration while the server knows it, else a new registration. */
async function chooseClient(
  deps: Deps,
  req: LoginRequest,
  hooks: LoginHooks,
  server: ServerInfo,
  store: CredentialStore,
  auth: AuthMethodChoice,
): Promise<{ client: ClientIdentity; redirectUri: string; listenerPid?: number }> {
  const authMethod = auth.method;
  const { as } = server;
  if (req.clientMetadataUrl) {
    if (as.client_id_metadata_document_supported !== true) {
      throw new UsageError(`The authorization server ${as.issuer} does not support client ID metadata documents.`, {
        hint: 'Omit --client-metadata-url to register dynamically.',
      });
    }
    assertSafeUrl(req.clientMetadataUrl, 'client metadata URL');
    const { redirectUri, listenerPid } = await hooks.listen(undefined);
    return { client: { clientId: req.clientMetadataUrl, authMethod: 'none' }, redirectUri, listenerPid };
  }
  // The server may have registered another secret-based method than the one asked: any confidential registration will do.
  const confidential = authMethod !== 'none';
  const cached = await deps.state.clientRegistration(as.issuer, (c) => (c.authMethod !== 'none') === confidential);
  const { redirectUri, listenerPid } = await hooks.listen(cached?.redirectUri);
  if (cached && cached.redirectUri === redirectUri && (!req.device || cached.deviceGrant)) {
    const secret = confidential ? await deps.state.clientSecret(as.issuer, cached) : undefined;
    const identity: ClientIdentity = { clientId: cached.clientId, authMethod: cached.authMethod, clientSecret: secret };
    if ((!confidential || secret) && (await clientStillKnown(deps.http, as, identity, redirectUri, deps.signal))) {
      if (deps.verbose) hooks.notify(`Reusing the registered client ${printable(cached.clientId)}.\n`);
      return { client: identity, redirectUri, listenerPid };
    }
    hooks.notify('The server no longer knows the saved client registration; registering again.\n');
  }
  if (auth.becameConfidential) {
    hooks.notify(`The authorization server does not accept public clients; registering as a confidential client (${authMethod}).\n`);
  }
  const registered = await registerClient(deps.http, as, { redirectUri, authMethod, signal: deps.signal });
  const registration: ClientRegistration = {
    clientId: registered.clientId,
    authMethod: registered.authMethod,
    redirectUri,
    registeredAt: nowSeconds(deps),
    secretStorage: registered.clientSecret ? store.kind : undefined,
    // RFC 7592: the registration can be read (doctor) and deleted (the last logout using it).
    ...(offersDeviceGrant(as) ? { deviceGrant: true } : {}),
    ...(registered.management ? { registrationClientUri: registered.management.clientUri, registrationTokenStorage: store.kind } : {}),
  };
  if (registered.managementRefused) hooks.notify(`Warning: ${printable(registered.managementRefused.message)}\n`);
  if (registered.management) await saveRegistrationToken(deps.state, store.kind, as.issuer, registered.clientId, registered.management.accessToken);
  await deps.state.saveClient(as.issuer, registration, registered.clientSecret);
  return { client: { clientId: registered.clientId, authMethod: registered.authMethod, clientSecret: registered.clientSecret }, redirectUri, listenerPid };
}

/** What every kind of login starts with: the server, the scopes to ask, the store and the client. */
export interface LoginClient {
  server: ServerInfo;
  scopes: string[];
  store: CredentialStore;
  client: ClientIdentity;
  redirectUri: string;
  listenerPid?: number;
}

/** Discovers the server, checks the scopes, chooses the store and the client (registering when needed). */
export async function chooseLoginClient(deps: Deps, req: LoginRequest, hooks: LoginHooks): Promise<LoginClient> {
  const server = await discover(deps.http, req.baseUrl, deps.signal);
  const { as } = server;
  await deps.state.saveServer(server, nowSeconds(deps));
  if (req.device && !as.device_authorization_endpoint) {
    throw new UsageError(`--device: the authorization server ${as.issuer} offers no device authorization (its metadata has no device_authorization_endpoint).`, {
      hint: 'Log in without --device; on a remote machine, `school login --no-browser` prints the URL to open elsewhere.',
    });
  }

  if (req.scopes?.length) checkScopes(req.scopes, as.scopes_supported, req.retryCommand);
  // Without a scope list, an OpenID provider is known by the endpoints only it has.
  const openIdProvider = Boolean(as.userinfo_endpoint || as.id_token_signing_alg_values_supported);
  const scopes = requestedScopes(req.scopes, as.scopes_supported, openIdProvider);
  const auth = chooseAuthMethod(as.token_endpoint_auth_methods_supported, req.confidential);

  const store = await chooseStore(deps, req.insecureStorage, hooks.notify);
  const { client, redirectUri, listenerPid } = await chooseClient(deps, req, hooks, server, store, auth);
  return { server, scopes, store, client, redirectUri, listenerPid };
}

/**
 * The first half of `school login`: discover, choose the store and the client (registering when
 * needed), and build the authorization request. The result is saved in the repository, so the
 * login can be completed by this process or another one.
 */
export async function prepareLogin(deps: Deps, req: LoginRequest, hooks: LoginHooks): Promise<PendingLogin> {
  const { server, scopes, store, client, redirectUri, listenerPid } = await chooseLoginClient(deps, req, hooks);
  const { as } = server;
  const request = await authorizationRequest(as, { clientId: client.clientId, redirectUri, scopes, resource: server.resource });
  // RFC 9126: where the server takes pushed requests, the browser gets only client_id and request_uri.
  if (usesPushedRequests(as)) request.url = await pushAuthorizationRequest(deps.http, as, client, { authorizationUrl: request.url, signal: deps.signal });
  const pending: PendingLogin = {
    profile: req.profile,
    baseUrl: server.baseUrl,
    issuer: as.issuer,
    resource: server.resource,
    clientId: client.clientId,
    authMethod: client.authMethod,
    redirectUri,
    state: request.state,
    codeVerifier: request.codeVerifier,
    nonce: request.nonce,
    scopes,
    storage: store.kind,
    authorizationUrl: request.url,
    expiresAt: nowSeconds(deps) + req.timeoutSeconds,
    listenerPid,
  };
  await deps.state.savePendingLogin(pending);
  return pending;
}

export async function clientFor(deps: Deps, pending: PendingLogin): Promise<ClientIdentity> {
  if (pending.authMethod === 'none') return { clientId: pending.clientId, authMethod: 'none' };
  const registration = await deps.state.clientRegistration(pending.issuer, (c) => c.clientId === pending.clientId);
  const clientSecret = registration ? await deps.state.clientSecret(pending.issuer, registration) : undefined;
  return { clientId: pending.clientId, authMethod: pending.authMethod, clientSecret };
}

/** The tokens a profile held before this login, if they can still be read. */
async function replacedTokens(deps: Deps, name: string): Promise<TokenSet | undefined> {
  const profile = await deps.state.profile(name);
  if (!profile) return undefined;
  // A session the server refused to renew still holds tokens worth ending at the server.
  const found = await deps.state.inspectTokens(name, profile, { evenIfRefused: true }).catch(() => undefined);
  return found?.ok ? found.set : undefined;
}

/** How long ending an unused grant may take: it runs after Ctrl-C too (another Ctrl-C still stops it). */
const CLEANUP_TIMEOUT_MS = 10_000;

/** Ends tokens at their server, as far as it can be done; for grants nobody will use. */
async function revokeQuietly(deps: Deps, server: ServerInfo, client: ClientIdentity, tokens: Array<[string | undefined, 'refresh_token' | 'access_token']>): Promise<void> {
  for (const [token, hint] of tokens) {
    if (token) await revokeToken(deps.http, server.as, client, { token, hint, signal: AbortSignal.timeout(CLEANUP_TIMEOUT_MS) }).catch(() => undefined);
  }
}

// Claims about the token rather than the user; the nonce is kept out of the saved claims too.
const PROTOCOL_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'nonce', 'at_hash', 'c_hash', 's_hash', 'azp', 'auth_time', 'acr', 'amr', 'sid']);

/** The ID token's claims about the user, for `whoami` where the server has no userinfo endpoint. */
export function identityClaims(claims: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims).filter(([k]) => !PROTOCOL_CLAIMS.has(k)));
}

interface Identity {
  claims?: Record<string, unknown>;
  source?: IdentitySource;
  warnings: string[];
}

/**
 * Who signed in: the userinfo endpoint where there is one (its `sub` checked against the ID
 * token's), else the ID token's claims, else what introspection says of the token's subject.
 * Not knowing is not a failure: the login itself succeeded.
 */
async function learnIdentity(deps: Deps, server: ServerInfo, client: ClientIdentity, tokens: TokenSet, idClaims: Record<string, unknown> | undefined): Promise<Identity> {
  const { as } = server;
  const warnings: string[] = [];
  if (as.userinfo_endpoint) {
    try {
      const info = await requestUserInfo(deps.http, as, { clientId: client.clientId, accessToken: tokens.accessToken, expectedSubject: tokens.subject, signal: deps.signal });
      if (info.ok) return { claims: info.claims, source: 'userinfo', warnings };
    } catch (err) {
      if (err instanceof CliError && err.code === 'subject_mismatch') warnings.push(`${err.message} The ID token's identity is used instead.`);
    }
  }
  if (idClaims) return { claims: identityClaims(idClaims), source: 'id_token', warnings };
  const introspected = await introspectOwnToken(deps.http, as, client, { accessToken: tokens.accessToken, signal: deps.signal }).catch(() => undefined);
  if (introspected?.active && (introspected.sub || introspected.username)) {
    return { claims: { sub: introspected.sub, preferred_username: introspected.username }, source: 'introspection', warnings };
  }
  return { warnings };
}

function userOf(claims: Record<string, unknown> | undefined): Profile['user'] {
  if (!claims) return undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { sub: text(claims.sub), name: text(claims.name) ?? text(claims.preferred_username), email: text(claims.email) };
}

/**
 * The second half of `school login`: check the redirect (state, iss), exchange the code, learn who
 * signed in, store the tokens and the profile, and end the grant this login replaces. The caller
 * removes the pending login once it has said how the login ended: a background listener must
 * record the outcome first, so that `login --wait` never finds neither.
 */
export async function completeLogin(deps: Deps, pending: PendingLogin, redirect: URL): Promise<LoginResult> {
  const server = await serverFor(deps, pending.baseUrl, pending.issuer);
  const { as } = server;
  const client = await clientFor(deps, pending);
  const params = await validateCallback(as, client, redirect, pending.state);

  let exchanged: Awaited<ReturnType<typeof exchangeCode>>;
  try {
    exchanged = await exchangeCode(deps.http, as, client, {
      params,
      redirectUri: pending.redirectUri,
      codeVerifier: pending.codeVerifier,
      nonce: pending.nonce,
      resource: pending.resource,
      nowSeconds: nowSeconds(deps),
      signal: deps.signal,
    });
  } catch (err) {
    if (err instanceof ServerRefusal && err.error === 'invalid_client') {
      await deps.state.forgetClient(as.issuer, client.clientId);
      const answered = err.status ? `HTTP ${err.status}, ` : '';
      throw new CliError(`The server no longer accepts the saved client registration (${answered}${err.detail}); it has been forgotten.`, { code: 'invalid_client', hint: 'Run `school login` again.' });
    }
    throw err;
  }
  return storeLogin(deps, pending, server, client, exchanged);
}

/**
 * The end of every kind of login, once the tokens came: learn who signed in, store the tokens and
 * the profile, and end the grant this login replaces.
 */
export async function storeLogin(
  deps: Deps,
  pending: Pick<PendingLogin, 'profile' | 'scopes' | 'authMethod' | 'storage'>,
  server: ServerInfo,
  client: ClientIdentity,
  exchanged: ExchangeResult,
): Promise<LoginResult> {
  const { as } = server;
  const { tokens, idClaims } = exchanged;
  const identity = await learnIdentity(deps, server, client, tokens, idClaims);
  const warnings = [...identity.warnings];
  const withheld = withheldScopes(pending.scopes, exchanged.grantedScope, exchanged.refreshTokenIssued);
  if (withheld.length) {
    warnings.push(`The server granted fewer scopes than asked: ${withheld.join(', ')} ${withheld.length > 1 ? 'were' : 'was'} not granted.`);
  }

  const profile: Profile = {
    baseUrl: server.baseUrl,
    issuer: as.issuer,
    resource: server.resource,
    clientId: client.clientId,
    authMethod: pending.authMethod,
    storage: pending.storage,
    user: userOf(identity.claims),
    userSource: identity.source,
    idClaims: idClaims ? identityClaims(idClaims) : undefined,
    loggedInAt: nowSeconds(deps),
  };
  let replaced: TokenSet | undefined;
  try {
    // Under the refresh's lock: a refresh in flight writes its tokens first, and this login then
    // replaces (and below revokes) them, rather than the refresh overwriting the new login.
    replaced = await deps.state.locked(profileLockName(pending.profile), deps.signal, async () => {
      const previous = await replacedTokens(deps, pending.profile);
      await deps.state.saveTokens(pending.profile, pending.storage, tokens);
      await deps.state.saveProfile(pending.profile, profile);
      return previous;
    });
  } catch (err) {
    // Tokens that cannot be kept must not stay valid at the server either.
    await revokeQuietly(deps, server, client, [
      [tokens.refreshToken, 'refresh_token'],
      [tokens.accessToken, 'access_token'],
    ]);
    throw err;
  }
  // The grant this login replaces is no longer used by anyone: end it at its server.
  if (replaced?.refreshToken && replaced.issuer === as.issuer && replaced.refreshToken !== tokens.refreshToken) {
    await revokeQuietly(deps, server, clientOf(replaced), [[replaced.refreshToken, 'refresh_token']]);
  }
  const location = (await deps.state.openStore(pending.storage)).location;
  return { profile, user: identity.claims ? describeUser(identity.claims) : undefined, warnings, location };
}

/** "Logged in as Ada Lovelace on https://… (profile work)."; a server that does not say who signed in is named as such. */
export function loggedInMessage(user: string | undefined, where: string): string {
  // Both come from servers (claims, a base URL's echo): shown as plain text.
  return user ? `Logged in as ${printable(user)} on ${printable(where)}.` : `Logged in on ${printable(where)}; the server does not say who signed in.`;
}

/** Path completion reads the API description from the cache; a failure here costs nothing. */
export async function cacheApiDescription(deps: Deps, baseUrl: string): Promise<void> {
  const doc = await fetchOpenApi(deps.http, baseUrl, AbortSignal.any([deps.signal, AbortSignal.timeout(3000)])).catch(() => undefined);
  if (doc) await deps.state.saveApiDescription(baseUrl, doc);
}
