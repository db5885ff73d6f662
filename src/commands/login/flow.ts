import { fetchOpenApi } from '../../api/openapi.js';
import { cacheServerInfo, discover, type ServerInfo } from '../../auth/discover.js';
import { loadOAuth } from '../../auth/oauth.js';
import { startLoopback, type LoopbackListener } from '../../auth/loopback.js';
import { registerClient } from '../../auth/register.js';
import { checkScopes, defaultScopes } from '../../auth/scopes.js';
import { type ClientIdentity, clientOf, clientStillKnown, exchangeCode, revokeToken, toTokenSet, validateCallback } from '../../auth/tokens.js';
import { describeUser, requestUserInfo } from '../../auth/userinfo.js';
import { type AuthMethod, type ClientRegistration, type Profile, loadConfig, updateConfig } from '../../config/config.js';
import { type CredentialStore, clientAccount, profileAccount } from '../../credentials/store.js';
import { readProfileTokens } from '../../credentials/profile-tokens.js';
import { type TokenSet, serializeTokenSet } from '../../credentials/token-set.js';
import { type Deps, keychainOr, nowSeconds, openStore } from '../../deps.js';
import { CliError, UsageError } from '../../errors.js';
import { assertSafeUrl } from '../../http/transport.js';
import { startSpinner } from '../../ui/spinner.js';
import { registerSecret } from '../../util/redact.js';
import { printable } from '../../util/printable.js';

export const CALLBACK_PATH = '/callback';

export interface LoginRequest {
  profile: string;
  baseUrl: string;
  scopes?: string[];
  /** Fixed loopback port; otherwise the cached registration's port, else an ephemeral one. */
  port?: number;
  timeoutSeconds: number;
  openBrowser: boolean;
  confidential: boolean;
  insecureStorage: boolean;
  /** A Client ID Metadata Document URL, used as client_id where the server supports it. */
  clientMetadataUrl?: string;
}

export interface LoginResult {
  profile: Profile;
  user: string;
  storage: CredentialStore;
}

/** Chooses where secrets go: the keychain when it proves usable, else the 0600 file, said plainly. */
async function chooseStore(deps: Deps, insecure: boolean): Promise<CredentialStore> {
  const file = deps.credentials.file();
  const usableFile = async () => {
    await file.get('probe'); // a damaged file is reported now, before the user signs in for nothing
    return file;
  };
  if (insecure) {
    deps.io.err.write(`Storing credentials in plain text at ${file.location} (--insecure-storage).\n`);
    return usableFile();
  }
  const chosen = await keychainOr(deps, file);
  if (!chosen.reason) return chosen.store;
  deps.io.err.write(
    `Warning: no usable OS keychain (${chosen.reason}).\nStoring credentials in plain text at ${file.location}, readable only by you (mode 0600).\n`,
  );
  return usableFile();
}

function portOf(redirectUri: string): number {
  return Number(new URL(redirectUri).port);
}

async function listen(deps: Deps, req: LoginRequest, cached: ClientRegistration | undefined): Promise<LoopbackListener> {
  const timeoutMs = req.timeoutSeconds * 1000;
  if (req.port !== undefined) return startLoopback({ port: req.port, path: CALLBACK_PATH, timeoutMs, signal: deps.signal });
  if (cached) {
    // The cached registration names a port; reuse it when free so no new registration is needed.
    try {
      return await startLoopback({ port: portOf(cached.redirectUri), path: CALLBACK_PATH, timeoutMs, signal: deps.signal });
    } catch (err) {
      if ((err as CliError).code !== 'port_in_use') throw err;
    }
  }
  return startLoopback({ port: 0, path: CALLBACK_PATH, timeoutMs, signal: deps.signal });
}

async function resolveClient(
  deps: Deps,
  req: LoginRequest,
  server: ServerInfo,
  listener: LoopbackListener,
  store: CredentialStore,
  cached: ClientRegistration | undefined,
  authMethod: AuthMethod,
): Promise<ClientIdentity> {
  const { as } = server;
  if (req.clientMetadataUrl) {
    if (as.client_id_metadata_document_supported !== true) {
      throw new UsageError(`The authorization server ${as.issuer} does not support client ID metadata documents.`, {
        hint: 'Omit --client-metadata-url to register dynamically.',
      });
    }
    assertSafeUrl(req.clientMetadataUrl, 'client metadata URL');
    return { clientId: req.clientMetadataUrl, authMethod: 'none' };
  }
  if (cached && cached.redirectUri === listener.redirectUri) {
    let secret: string | undefined;
    if (authMethod === 'client_secret_post') {
      const secretStore = cached.secretStorage ? await openStore(deps, cached.secretStorage).catch(() => undefined) : undefined;
      secret = (await secretStore?.get(clientAccount(as.issuer, cached.clientId)).catch(() => null)) ?? undefined;
      registerSecret(secret);
    }
    const identity: ClientIdentity = { clientId: cached.clientId, authMethod, clientSecret: secret };
    if ((authMethod === 'none' || secret) && (await clientStillKnown(deps.http, as, identity, listener.redirectUri, deps.signal))) {
      if (deps.verbose) deps.io.err.write(`Reusing the registered client ${printable(cached.clientId)}.\n`);
      return identity;
    }
    deps.io.err.write('The server no longer knows the saved client registration; registering again.\n');
  }
  const registered = await registerClient(deps.http, as, { redirectUri: listener.redirectUri, authMethod, signal: deps.signal });
  if (registered.clientSecret) await store.set(clientAccount(as.issuer, registered.clientId), registered.clientSecret);
  await updateConfig(deps.paths, (config) => {
    const others = (config.clients[as.issuer] ?? []).filter((c) => c.authMethod !== authMethod);
    config.clients[as.issuer] = [
      ...others,
      {
        clientId: registered.clientId,
        authMethod,
        redirectUri: listener.redirectUri,
        registeredAt: nowSeconds(deps),
        secretStorage: registered.clientSecret ? store.kind : undefined,
      },
    ];
  });
  return { clientId: registered.clientId, authMethod, clientSecret: registered.clientSecret };
}

/** The tokens a profile held before this login, if they can still be read. */
async function previousTokens(deps: Deps, profile: Profile | undefined, name: string): Promise<TokenSet | undefined> {
  if (!profile) return undefined;
  try {
    return (await readProfileTokens(deps, name, profile)).set;
  } catch {
    return undefined;
  }
}

/** Reads a redirect URL pasted on a terminal, for a browser that runs on another machine. */
async function readPastedRedirect(deps: Deps, listener: LoopbackListener): Promise<{ result: Promise<URL>; stop(): void }> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: deps.io.in, terminal: false });
  const result = new Promise<URL>((resolve) => {
    rl.on('line', (line) => {
      const text = line.trim();
      if (!text) return;
      try {
        const url = new URL(text);
        const expected = new URL(listener.redirectUri);
        if (url.origin === expected.origin && url.pathname === expected.pathname) {
          resolve(url);
          return;
        }
      } catch {
        // not a URL
      }
      deps.io.err.write(`That is not the address the sign-in redirected to (it starts with ${listener.redirectUri}?). Paste it again.\n`);
    });
  });
  return { result, stop: () => rl.close() };
}

async function waitForRedirect(deps: Deps, req: LoginRequest, listener: LoopbackListener, authUrl: string): Promise<URL> {
  const { io } = deps;
  const canPaste = !req.openBrowser && io.inIsTTY;
  if (req.openBrowser) {
    const opened = await deps.browser.open(authUrl);
    if (opened.opened) io.err.write(`Opening the browser to sign in. If it does not open, visit:\n${authUrl}\n`);
    else io.err.write(`Could not open a browser (${opened.reason}). Open this URL to sign in:\n${authUrl}\n`);
  } else {
    io.err.write(`Open this URL in a browser to sign in:\n${authUrl}\n`);
    if (canPaste) io.err.write(`The browser will be sent to ${listener.redirectUri}; if that page does not load (browser on another machine), paste its full address here.\n`);
  }
  const waiting = `Waiting for the sign-in to finish (${req.timeoutSeconds} s; Ctrl-C to cancel)…`;
  // A spinner redraws its line and would wipe out what the user pastes: no spinner then.
  const spinner = canPaste ? (io.err.write(`${waiting}\n`), { stop() {} }) : await startSpinner(io, waiting);
  const paste = canPaste ? await readPastedRedirect(deps, listener) : undefined;
  try {
    return await (paste ? Promise.race([listener.callback, paste.result]) : listener.callback);
  } finally {
    spinner.stop();
    paste?.stop();
  }
}

/** The whole `school login`: discover → register (cached) → authorize in the browser → exchange → store. */
export async function loginFlow(deps: Deps, req: LoginRequest): Promise<LoginResult> {
  const server = await discover(deps.http, req.baseUrl, deps.signal);
  const { as } = server;
  await cacheServerInfo(deps.paths.cacheDir, server);

  const scopes = req.scopes?.length ? req.scopes : defaultScopes(as.scopes_supported);
  checkScopes(scopes, as.scopes_supported);

  const authMethod: AuthMethod = req.confidential ? 'client_secret_post' : 'none';
  const methods = as.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes(authMethod)) {
    throw new CliError(`The authorization server does not accept the client authentication "${authMethod}" (it offers ${methods.join(', ')}).`, {
      code: 'unsupported_auth_method',
    });
  }

  const store = await chooseStore(deps, req.insecureStorage);
  const config = await loadConfig(deps.paths);
  const cached = req.clientMetadataUrl ? undefined : config.clients[as.issuer]?.find((c) => c.authMethod === authMethod);

  const listener = await listen(deps, req, cached);
  let finished = false;
  const fail = async (title: string, message: string) => {
    if (finished) return;
    finished = true;
    await listener.finish({ ok: false, title, message });
  };
  try {
    const client = await resolveClient(deps, req, server, listener, store, cached, authMethod);

    const oauth = await loadOAuth();
    const codeVerifier = oauth.generateRandomCodeVerifier();
    registerSecret(codeVerifier);
    const state = oauth.generateRandomState();
    const authUrl = new URL(as.authorization_endpoint!);
    authUrl.searchParams.set('response_type', 'code');
    authUrl.searchParams.set('client_id', client.clientId);
    authUrl.searchParams.set('redirect_uri', listener.redirectUri);
    authUrl.searchParams.set('scope', scopes.join(' '));
    authUrl.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    authUrl.searchParams.set('code_challenge_method', 'S256');
    authUrl.searchParams.set('state', state);
    if (server.resource) authUrl.searchParams.set('resource', server.resource);

    const redirect = await waitForRedirect(deps, req, listener, authUrl.toString());

    let params: URLSearchParams;
    try {
      params = await validateCallback(as, client, redirect, state);
    } catch (err) {
      const e = err as { name?: string; error?: string; error_description?: string; message?: string };
      if (e.name === 'AuthorizationResponseError') {
        const text = `${e.error}${e.error_description ? `: ${e.error_description}` : ''}`;
        await fail('Sign-in not completed', `The authorization server answered ${text}. Return to the terminal.`);
        // The error code came in a URL anyone could have sent: it is a --json code only when it looks like one.
        const code = typeof e.error === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(e.error) ? e.error : 'authorization_failed';
        throw new CliError(`Login failed: the authorization server answered ${text}.`, { code });
      }
      await fail('Sign-in refused', 'The response failed a security check and was not used. Return to the terminal.');
      throw new CliError(`Login refused: the sign-in response failed a security check (${e.message}). Nothing was stored.`, {
        code: 'invalid_callback',
      });
    }

    let tokenResponse: Awaited<ReturnType<typeof exchangeCode>>;
    try {
      tokenResponse = await exchangeCode(deps.http, as, client, { params, redirectUri: listener.redirectUri, codeVerifier, resource: server.resource, signal: deps.signal });
    } catch (err) {
      await fail('Sign-in failed', 'The code could not be exchanged for tokens. Return to the terminal.');
      if ((err as { error?: string }).error === 'invalid_client') {
        await updateConfig(deps.paths, (c) => {
          c.clients[as.issuer] = (c.clients[as.issuer] ?? []).filter((r) => r.clientId !== client.clientId);
        });
        throw new CliError('The server no longer accepts the saved client registration; it has been forgotten.', {
          code: 'invalid_client',
          hint: 'Run `school login` again.',
        });
      }
      throw err;
    }

    const tokens = toTokenSet(tokenResponse, { issuer: as.issuer, client, resource: server.resource, nowSeconds: nowSeconds(deps) });
    let claims: Record<string, unknown> | undefined;
    const info = await requestUserInfo(deps.http, as, tokens.accessToken, deps.signal).catch(() => undefined);
    if (info?.ok) claims = info.claims;
    else claims = oauth.getValidatedIdTokenClaims(tokenResponse) as Record<string, unknown> | undefined;

    const replaced = await previousTokens(deps, config.profiles[req.profile], req.profile);
    try {
      await store.set(profileAccount(deps.paths.configDir, req.profile), serializeTokenSet(tokens));
    } catch (err) {
      // Tokens that cannot be kept must not stay valid at the server either.
      for (const [token, hint] of [[tokens.refreshToken, 'refresh_token'], [tokens.accessToken, 'access_token']] as const) {
        if (token) await revokeToken(deps.http, as, client, { token, hint, signal: deps.signal }).catch(() => undefined);
      }
      throw err;
    }
    const profile: Profile = {
      baseUrl: server.baseUrl,
      issuer: as.issuer,
      resource: server.resource,
      clientId: client.clientId,
      authMethod,
      storage: store.kind,
      user: claims
        ? {
            sub: typeof claims.sub === 'string' ? claims.sub : undefined,
            name: typeof claims.name === 'string' ? claims.name : undefined,
            email: typeof claims.email === 'string' ? claims.email : undefined,
          }
        : undefined,
      loggedInAt: nowSeconds(deps),
    };
    const previous = await updateConfig(deps.paths, (c) => {
      const before = c.profiles[req.profile];
      c.profiles[req.profile] = profile;
      return before;
    });
    // A profile that moved between keychain and file must not leave its old secrets behind.
    if (previous && previous.storage !== store.kind) {
      await openStore(deps, previous.storage)
        .then((old) => old.delete(profileAccount(deps.paths.configDir, req.profile)))
        .catch(() => undefined);
    }
    // The grant this login replaces is no longer used by anyone: end it at its server.
    if (replaced?.refreshToken && replaced.issuer === as.issuer && replaced.refreshToken !== tokens.refreshToken) {
      await revokeToken(deps.http, as, clientOf(replaced), { token: replaced.refreshToken, hint: 'refresh_token', signal: deps.signal }).catch(() => undefined);
    }
    finished = true;
    await listener.finish({ ok: true, title: 'Logged in', message: 'You are logged in to school. You can close this tab and return to the terminal.' });
    // Path completion reads the API description from the cache; a failure here costs nothing.
    await fetchOpenApi(deps.http, deps.paths.cacheDir, server.baseUrl, AbortSignal.any([deps.signal, AbortSignal.timeout(3000)])).catch(() => undefined);
    return { profile, user: describeUser(claims), storage: store };
  } finally {
    if (!finished) await fail('Sign-in cancelled', 'The command-line login stopped. Return to the terminal.');
    await listener.close();
  }
}
