import { type Deps, nowSeconds } from '../deps.js';
import { CliError, UsageError } from '../errors.js';
import { assertSafeUrl } from '../http/transport.js';
import { authorizationRequest, validateCallback } from '../oauth/authorize.js';
import { type AuthMethodChoice, type ClientIdentity, chooseAuthMethod, clientOf, preRegisteredAuthMethod } from '../oauth/client.js';
import { type ServerInfo, discover } from '../oauth/discover.js';
import { offersDeviceGrant } from '../oauth/device-authorization.js';
import { createDpopKey, dpopProver, usesDpop } from '../oauth/dpop.js';
import { type ExchangeResult, exchangeCode } from '../oauth/exchange.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';
import { authorizationPreflight } from '../oauth/authorization-preflight.js';
import { pushAuthorizationRequest, usesPushedRequests } from '../oauth/pushed-authorization.js';
import { registerClient } from '../oauth/register.js';
import { revokeToken } from '../oauth/revoke.js';
import { identityClaims, lookUpIdentity } from '../session/identity.js';
import { profileLockName } from '../session/refresh.js';
import { loginCommandFor, loginFix } from '../util/login-command.js';
import { serverFor } from '../session/server.js';
import { stepUpCommand } from '../session/step-up.js';
import { sessionFrom } from '../session/usable-session.js';
import type { ClientRegistration, Profile } from '../types/profile.js';
import { type CredentialStore, PLAIN_STORAGE } from '../state/credential-store.js';
import type { PendingLogin } from '../state/pending-login.js';
import { saveRegistrationToken } from '../state/registration-token.js';
import type { DpopKey, TokenSet } from '../types/tokens.js';
import { describeUser } from '../ui/user.js';
import { isPlainScope } from '../util/plain-name.js';
import { printable } from '../util/printable.js';
import { registerSecret } from '../util/redact.js';
import { droppedScopes, heldScopes } from './held-scopes.js';
import { checkScopes, defaultScopes, knownScopes, requestedScopes, withheldScopes } from './scopes.js';
import { chooseStore, storageNotice } from './store-choice.js';
import { loginCommandText } from '../util/login-command.js';

export const CALLBACK_PATH = '/callback';

export type ScopeFlag = '--scope' | '--add-scope';

export interface LoginRequest {
  profile: string;
  baseUrl: string;
  /** `--scope`: replaces the default set. */
  scopes?: string[];
  /** `--add-scope`: added to the scopes the profile holds now (or to the default set when it holds none). */
  addScopes?: string[];
  /** How long the prepared login stays valid. */
  timeoutSeconds: number;
  confidential: boolean;
  insecureStorage: boolean;
  /** `--client-metadata-url`: a Client ID Metadata Document URL as client_id; refused where the server does not support it. */
  clientMetadataUrl?: string;
  /** SCHOOL_CLIENT_METADATA_URL: the same, used only where the server supports it. */
  envClientMetadataUrl?: string;
  /** `--client-id`: a client registered out of band; no registration request is made. */
  clientId?: string;
  /** Its secret (SCHOOL_CLIENT_SECRET or `--client-secret-stdin`), for a confidential one. */
  clientSecret?: string;
  /** The command line that repeats this login with other scopes (given to `flag`), for the "did you mean" hint. */
  retryCommand?: (scopes: string[], flag: ScopeFlag) => string;
  /** A device authorization grant (RFC 8628): the client must be registered for it. */
  device?: boolean;
  /** `--no-dpop`: bearer tokens even where the server offers DPoP. */
  noDpop?: boolean;
}

export interface LoginHooks {
  /** Messages for the user; preparing a login writes nothing itself. */
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

/** A new registration for this redirect URI, saved in place of the earlier one of its kind. */
async function registerNew(deps: Deps, as: ServerInfo['as'], redirectUri: string, auth: AuthMethodChoice, store: CredentialStore, hooks: LoginHooks): Promise<ClientIdentity> {
  if (auth.becameConfidential) {
    hooks.notify(`The authorization server does not accept public clients; registering as a confidential client (${auth.method}).\n`);
  }
  const registered = await registerClient(deps.http, as, { redirectUri, authMethod: auth.method, signal: deps.signal });
  const registration: ClientRegistration = {
    clientId: registered.clientId,
    authMethod: registered.authMethod,
    redirectUri,
    registeredAt: nowSeconds(deps),
    secretStorage: registered.clientSecret ? store.kind : undefined,
    ...(offersDeviceGrant(as) ? { deviceGrant: true } : {}),
    // RFC 7592: the registration can be read (doctor) and deleted (the last logout using it).
    ...(registered.management ? { registrationClientUri: registered.management.clientUri, registrationTokenStorage: store.kind } : {}),
  };
  if (registered.managementRefused) hooks.notify(`Warning: ${printable(registered.managementRefused.message)}\n`);
  if (registered.management) await saveRegistrationToken(deps.state, store.kind, as.issuer, registered.clientId, registered.management.accessToken);
  await deps.state.saveClient(as.issuer, registration, registered.clientSecret);
  return { clientId: registered.clientId, authMethod: registered.authMethod, clientSecret: registered.clientSecret };
}

/** The client a login uses, and how it came to be chosen. */
interface ChosenClient {
  client: ClientIdentity;
  redirectUri: string;
  listenerPid?: number;
  /** A saved registration (or a pre-registered client), used without asking the server first. */
  reused: boolean;
  /** Registered out of band (`--client-id`, or saved from one): never registered again in its place. */
  preRegistered?: boolean;
}

/**
 * The saved registration to reuse, whatever auth method the server gave it: a server that made a
 * public registration confidential keeps that client, and a login never registers again only
 * because the cached client is not of the kind it would ask for. `--confidential` is the one
 * exception: a confidential client was asked for by name, and a public one is not that. A client
 * registered out of band serves where no dynamic registration is saved.
 */
async function savedRegistration(deps: Deps, issuer: string, kind: { prefer: 'public' | 'confidential'; confidentialOnly: boolean }): Promise<ClientRegistration | undefined> {
  const isConfidential = (c: ClientRegistration) => c.authMethod !== 'none';
  const dynamic = (c: ClientRegistration) => !c.preRegistered;
  const fits = (c: ClientRegistration) => !kind.confidentialOnly || isConfidential(c);
  return (
    (await deps.state.clientRegistration(issuer, (c) => dynamic(c) && isConfidential(c) === (kind.prefer === 'confidential'))) ??
    (await deps.state.clientRegistration(issuer, (c) => dynamic(c) && fits(c))) ??
    (await deps.state.clientRegistration(issuer, (c) => !dynamic(c) && fits(c)))
  );
}

/** `login --client-id`: a client registered out of band, saved (with its secret) for the logins after this one. */
async function preRegisteredClient(deps: Deps, req: LoginRequest & { clientId: string }, hooks: LoginHooks, as: ServerInfo['as'], store: CredentialStore): Promise<ChosenClient> {
  const clientSecret = req.clientSecret || undefined;
  registerSecret(clientSecret);
  const authMethod = clientSecret ? preRegisteredAuthMethod(as.token_endpoint_auth_methods_supported) : 'none';
  const saved = await deps.state.clientRegistration(as.issuer, (c) => c.clientId === req.clientId && Boolean(c.preRegistered));
  const { redirectUri, listenerPid } = await hooks.listen(saved?.redirectUri);
  const registration: ClientRegistration = {
    clientId: req.clientId,
    authMethod,
    redirectUri,
    registeredAt: nowSeconds(deps),
    secretStorage: clientSecret ? store.kind : undefined,
    preRegistered: true,
  };
  await deps.state.saveClient(as.issuer, registration, clientSecret);
  return { client: { clientId: req.clientId, authMethod, clientSecret }, redirectUri, listenerPid, reused: true, preRegistered: true };
}

/**
 * The client to log in as: a pre-registered client (`--client-id`), a metadata document URL, the
 * cached registration (trusted: the authorization request itself shows whether the server still
 * knows it), else a new registration.
 */
async function chooseClient(deps: Deps, req: LoginRequest, hooks: LoginHooks, server: ServerInfo, store: CredentialStore, auth: AuthMethodChoice): Promise<ChosenClient> {
  const { as } = server;
  const { clientId } = req;
  if (clientId) return preRegisteredClient(deps, { ...req, clientId }, hooks, as, store);
  const metadataUrl = clientMetadataUrlFor(req, as, hooks);
  if (metadataUrl) {
    assertSafeUrl(metadataUrl, 'client metadata URL');
    const { redirectUri, listenerPid } = await hooks.listen(undefined);
    return { client: { clientId: metadataUrl, authMethod: 'none' }, redirectUri, listenerPid, reused: false };
  }
  // The kind the server's metadata asks for first (a public client where it takes one), then any.
  const cached = await savedRegistration(deps, as.issuer, { prefer: auth.method === 'none' ? 'public' : 'confidential', confidentialOnly: req.confidential });
  const { redirectUri, listenerPid } = await hooks.listen(cached?.redirectUri);
  // A loopback redirect may use any port (RFC 8252 §7.3): a client registered out of band is not
  // registered again because another port was free this time.
  if (cached && (cached.preRegistered || cached.redirectUri === redirectUri) && (!req.device || cached.deviceGrant || cached.preRegistered)) {
    const confidential = cached.authMethod !== 'none';
    const secret = confidential ? await deps.state.clientSecret(as.issuer, cached) : undefined;
    if (!confidential || secret) {
      if (deps.verbose) hooks.notify(`Reusing the registered client ${printable(cached.clientId)}.\n`);
      const client = { clientId: cached.clientId, authMethod: cached.authMethod, clientSecret: secret };
      return { client, redirectUri, listenerPid, reused: true, ...(cached.preRegistered ? { preRegistered: true } : {}) };
    }
    if (cached.preRegistered) {
      throw new CliError(`The client secret of the pre-registered client ${printable(cached.clientId)} is no longer stored.`, {
        code: 'credentials_missing',
        hint: `Give it again: \`${loginCommandText({ baseUrl: req.baseUrl, profile: req.profile, options: [['--client-id', cached.clientId], '--client-secret-stdin'] })}\` (or SCHOOL_CLIENT_SECRET).`,
      });
    }
  }
  return { client: await registerNew(deps, as, redirectUri, auth, store, hooks), redirectUri, listenerPid, reused: false };
}

/**
 * The client ID metadata document URL to use as client_id, if any. `--client-metadata-url` is
 * refused where the server does not support such documents (the user asked for it by name);
 * SCHOOL_CLIENT_METADATA_URL, set once for every server, is used only where it is supported, and
 * elsewhere the login registers as usual, saying so in one line.
 */
function clientMetadataUrlFor(req: LoginRequest, as: ServerInfo['as'], hooks: LoginHooks): string | undefined {
  const supported = as.client_id_metadata_document_supported === true;
  if (req.clientMetadataUrl) {
    if (!supported) {
      throw new UsageError(`The authorization server ${as.issuer} does not support client ID metadata documents.`, {
        hint: 'Omit --client-metadata-url to register dynamically.',
      });
    }
    return req.clientMetadataUrl;
  }
  if (!req.envClientMetadataUrl) return undefined;
  if (supported) return req.envClientMetadataUrl;
  hooks.notify(`SCHOOL_CLIENT_METADATA_URL is not used: ${printable(as.issuer)} does not support client ID metadata documents; registering as usual.\n`);
  return undefined;
}

/** What every kind of login starts with: the server, the scopes to ask, the store and the client. */
export interface LoginClient {
  server: ServerInfo;
  scopes: string[];
  store: CredentialStore;
  /** Why the OS keychain was not used, when it was not and nobody asked for the file. */
  keychainProblem?: string;
  client: ClientIdentity;
  redirectUri: string;
  listenerPid?: number;
  /** A saved registration, reused without asking the server first. */
  reused: boolean;
  /** A client registered out of band. */
  preRegistered?: boolean;
  auth: AuthMethodChoice;
  /** The key the login's tokens are to be bound to, where the server offers DPoP (RFC 9449). */
  dpopKey?: DpopKey;
}

/** Discovers the server, checks the scopes, chooses the store and the client (registering when needed). */
export async function chooseLoginClient(deps: Deps, req: LoginRequest, hooks: LoginHooks): Promise<LoginClient> {
  // A challenge the API answered a request with (remembered by call, api, mcp or the library) leads to its metadata and scope.
  const challenge = await deps.state.seenChallenge(req.baseUrl, nowSeconds(deps)).catch(() => undefined);
  const server = await discover(deps.http, req.baseUrl, deps.signal, { challenge });
  const { as } = server;
  await deps.state.saveServer(server, nowSeconds(deps));
  if (req.device && !as.device_authorization_endpoint) {
    throw new UsageError(`--device: the authorization server ${as.issuer} offers no device authorization (its metadata has no device_authorization_endpoint).`, {
      hint: `Log in without --device; on a remote machine, \`${loginCommandText({ baseUrl: req.baseUrl, profile: req.profile, options: ['--no-browser'] })}\` prints the URL to open elsewhere.`,
    });
  }

  const retry = req.retryCommand;
  const fromResource = { resource: server.resourceScopes, challenge: server.challengeScopes };
  const known = knownScopes(as.scopes_supported, fromResource);
  if (req.scopes?.length) checkScopes(req.scopes, known, retry && ((s) => retry(s, '--scope')));
  if (req.addScopes?.length) checkScopes(req.addScopes, known, retry && ((s) => retry(s, '--add-scope')));
  // Without a scope list, an OpenID provider is known by the endpoints only it has.
  const openIdProvider = Boolean(as.userinfo_endpoint || as.id_token_signing_alg_values_supported);
  const asked = req.addScopes?.length ? [...((await heldScopes(deps, req.profile, as.issuer)) ?? defaultScopes(as.scopes_supported, openIdProvider, fromResource)), ...req.addScopes] : req.scopes;
  const scopes = requestedScopes(asked, as.scopes_supported, openIdProvider, fromResource);
  const auth = chooseAuthMethod(as.token_endpoint_auth_methods_supported, req.confidential);

  const { store, keychainProblem } = await chooseStore(deps, req.insecureStorage);
  const chosen = await chooseClient(deps, req, hooks, server, store, auth);
  // One new key per login: the tokens it brings are bound to it, and it is stored with them. Only
  // where the resource takes bound tokens: an authorization server's offer says nothing of the API.
  const dpopKey = usesDpop(server) && !req.noDpop ? await createDpopKey() : undefined;
  return { server, scopes, store, keychainProblem, auth, ...chosen, dpopKey };
}

/**
 * The first half of `school login`: discover, choose the store and the client (registering when
 * needed), and build the authorization request. The result is saved in the repository, so the
 * login can be completed by this process or another one.
 */
export async function prepareLogin(deps: Deps, req: LoginRequest, hooks: LoginHooks): Promise<PendingLogin> {
  const chosen = await chooseLoginClient(deps, req, hooks);
  const { server, scopes, store, keychainProblem, redirectUri, listenerPid, dpopKey } = chosen;
  const { as } = server;
  let { client } = chosen;
  const dpopJkt = dpopKey ? await (await dpopProver(dpopKey)).thumbprint() : undefined;
  let openBy: number | undefined;
  let request = await authorizationRequest(as, { clientId: client.clientId, redirectUri, scopes, resource: server.resource, dpopJkt });
  if (usesPushedRequests(as)) {
    // RFC 9126: the browser gets only client_id and request_uri. The push itself tells whether the
    // server still knows a saved client (and a request_uri is single-use: nothing else may send it).
    const pushed = await pushAuthorizationRequest(deps.http, as, client, { authorizationUrl: request.url, signal: deps.signal, dpopKey });
    request.url = pushed.url;
    // The URL is good only while the server keeps the pushed request, which may be shorter than the login waits.
    if (pushed.expiresIn < req.timeoutSeconds) openBy = nowSeconds(deps) + Math.max(0, Math.floor(pushed.expiresIn));
  } else if (chosen.reused && (await authorizationPreflight(deps.http, request.url, redirectUri, deps.signal)) === 'refused') {
    if (chosen.preRegistered) throw preRegisteredRefused(client.clientId, req.profile, server.baseUrl);
    // A saved registration is not tried with a made-up grant (a server logs every failed one, and
    // counts them against abuse): the authorization request the browser is about to send shows
    // whether the server still knows the client, without any grant at all.
    await deps.state.forgetClient(as.issuer, client.clientId);
    hooks.notify('The server no longer knows the saved client registration; it was forgotten, registering again.\n');
    client = await registerNew(deps, as, redirectUri, chosen.auth, store, hooks);
    request = await authorizationRequest(as, { clientId: client.clientId, redirectUri, scopes, resource: server.resource, dpopJkt });
  }
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
    keychainProblem,
    authorizationUrl: request.url,
    expiresAt: nowSeconds(deps) + req.timeoutSeconds,
    listenerPid,
    dpopKey,
    ...(openBy === undefined ? {} : { openBy }),
    ...(chosen.preRegistered ? { preRegistered: true } : {}),
  };
  await deps.state.savePendingLogin(pending);
  return pending;
}

/** A client registered out of band that the server does not know: nothing here can cure it. */
function preRegisteredRefused(clientId: string, profile: string, baseUrl: string, detail?: string): CliError {
  return new CliError(`The server does not accept the pre-registered client ${printable(clientId)}${detail ? ` (${detail})` : ''}.`, {
    code: 'unauthorized_client',
    hint: `Check the client id (and secret) with the server's operator; \`${loginCommandFor(profile, baseUrl)}\` without --client-id registers a client of its own where the server allows it.`,
  });
}

/** The refusals of a client itself, which a new registration cures. */
const CLIENT_REFUSALS = new Set(['invalid_client', 'unauthorized_client']);

/** Forgets a registration the server refused, so that the next login registers anew; the error says so. */
async function clientRefused(deps: Deps, pending: PendingLogin, client: ClientIdentity, err: ServerRefusal): Promise<CliError> {
  // Never forgotten nor registered again: the server's operator made it, and only they can mend it.
  if (pending.preRegistered) return preRegisteredRefused(client.clientId, pending.profile, pending.baseUrl, `${err.status ? `HTTP ${err.status}, ` : ''}${err.detail}`);
  await deps.state.forgetClient(pending.issuer, client.clientId);
  const answered = err.status ? `HTTP ${err.status}, ` : '';
  return new CliError(`The server no longer accepts the saved client registration (${answered}${err.detail}); it has been forgotten, and the next login registers again.`, {
    code: 'invalid_client',
    ...loginFix(pending.profile, pending.baseUrl),
  });
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
async function revokeQuietly(deps: Deps, server: ServerInfo, client: ClientIdentity, tokens: Array<[string | undefined, 'refresh_token' | 'access_token']>, dpopKey?: DpopKey): Promise<void> {
  for (const [token, hint] of tokens) {
    if (token) await revokeToken(deps.http, server.as, client, { token, hint, signal: AbortSignal.timeout(CLEANUP_TIMEOUT_MS), dpopKey }).catch(() => undefined);
  }
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
export async function completeLogin(deps: Deps, pending: PendingLogin, redirect: URL, stillWanted?: () => Promise<boolean>): Promise<LoginResult> {
  const server = await serverFor(deps, pending.baseUrl, pending.issuer, pending.profile);
  const { as } = server;
  const client = await clientFor(deps, pending);
  let params: URLSearchParams;
  try {
    params = await validateCallback(as, client, redirect, pending.state);
  } catch (err) {
    // A server that sends the refusal of a client back on the redirect (RFC 6749 §4.1.2.1).
    if (err instanceof ServerRefusal && CLIENT_REFUSALS.has(err.error)) throw await clientRefused(deps, pending, client, err);
    throw err;
  }

  let exchanged: ExchangeResult;
  try {
    exchanged = await exchangeCode(deps.http, as, client, {
      params,
      redirectUri: pending.redirectUri,
      codeVerifier: pending.codeVerifier,
      nonce: pending.nonce,
      resource: pending.resource,
      nowSeconds: nowSeconds(deps),
      signal: deps.signal,
      dpopKey: pending.dpopKey,
    });
  } catch (err) {
    if (err instanceof ServerRefusal && err.error === 'invalid_client') throw await clientRefused(deps, pending, client, err);
    throw err;
  }
  return storeLogin(deps, pending, server, client, exchanged, stillWanted);
}

/**
 * The end of every kind of login, once the tokens came (by the code, or the device grant): learn
 * who signed in, store the tokens and the profile, and end the grant this login replaces. A
 * background login passes `stillWanted`, asked under the profile's lock right before anything is
 * stored: a login cancelled meanwhile (`school logout`, a newer login) stores nothing, and the
 * tokens it got are revoked.
 */
export async function storeLogin(
  deps: Deps,
  pending: Pick<PendingLogin, 'profile' | 'scopes' | 'authMethod' | 'storage' | 'keychainProblem' | 'preRegistered'>,
  server: ServerInfo,
  client: ClientIdentity,
  exchanged: ExchangeResult,
  stillWanted?: () => Promise<boolean>,
): Promise<LoginResult> {
  const { as } = server;
  const { tokens, idClaims } = exchanged;
  // No `scope` in the answer means everything asked was granted (RFC 6749 §5.1): kept as such, so
  // that `login --add-scope` and the check for dropped scopes know what this session holds.
  tokens.scope ??= pending.scopes.join(' ');
  // A session of the new tokens alone: at login, nothing is refreshed to learn who signed in.
  const fresh = { ...sessionFrom(tokens, { profile: pending.profile, baseUrl: server.baseUrl, source: pending.storage }), client };
  const identity = await lookUpIdentity(deps, server, fresh, { idClaims: idClaims ? identityClaims(idClaims) : undefined }, 'login');
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
    user: identity.source ? userOf(identity.claims) : undefined,
    userSource: identity.source,
    idClaims: idClaims ? identityClaims(idClaims) : undefined,
    loggedInAt: nowSeconds(deps),
    ...(pending.preRegistered ? { preRegistered: true } : {}),
  };
  let replaced: TokenSet | undefined;
  try {
    // Under the refresh's lock: a refresh in flight writes its tokens first, and this login then
    // replaces (and below revokes) them, rather than the refresh overwriting the new login.
    replaced = await deps.state.locked(profileLockName(pending.profile), deps.signal, async () => {
      if (stillWanted && !(await stillWanted())) {
        throw new CliError('The login was cancelled before it completed (by `school logout` or a newer login); nothing was stored.', { code: 'login_failed' });
      }
      const previous = await replacedTokens(deps, pending.profile);
      await deps.state.saveTokens(pending.profile, pending.storage, tokens);
      await deps.state.saveProfile(pending.profile, profile);
      return previous;
    });
  } catch (err) {
    // Tokens that cannot be kept must not stay valid at the server either.
    await revokeQuietly(
      deps,
      server,
      client,
      [
        [tokens.refreshToken, 'refresh_token'],
        [tokens.accessToken, 'access_token'],
      ],
      tokens.dpopKey,
    );
    throw err;
  }
  const dropped = replaced?.issuer === as.issuer ? droppedScopes(replaced.scope, tokens.scope) : [];
  if (dropped.length) {
    const several = dropped.length > 1;
    const again = dropped.some(isPlainScope) ? ` \`${stepUpCommand({ profile: pending.profile }, dropped)}\` asks for ${several ? 'them' : 'it'} again.` : '';
    warnings.push(`This login holds fewer scopes than the profile had: ${printable(dropped.join(', '))} ${several ? 'were' : 'was'} dropped.${again}`);
  }
  // The grant this login replaces is no longer used by anyone: end it at its server.
  if (replaced?.refreshToken && replaced.issuer === as.issuer && replaced.refreshToken !== tokens.refreshToken) {
    await revokeQuietly(deps, server, clientOf(replaced), [[replaced.refreshToken, 'refresh_token']], replaced.dpopKey);
  }
  const location = (await deps.state.openStore(pending.storage)).location;
  if (pending.storage === PLAIN_STORAGE) warnings.push(storageNotice(location, pending.keychainProblem, deps.verbose, deps.platform));
  return { profile, user: identity.source ? describeUser(identity.claims) : undefined, warnings, location };
}
