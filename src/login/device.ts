import { type Deps, nowSeconds } from '../deps.js';
import { CliError } from '../errors.js';
import { DEFAULT_POLL_INTERVAL_SECONDS, type DeviceAuthorization, requestDeviceAuthorization } from '../oauth/device-authorization.js';
import { pollDeviceToken } from '../oauth/device-token.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';
import { systemProcesses } from './background.js';
import { serverFor } from '../session/server.js';
import type { PendingLogin } from '../state/pending-login.js';
import { CALLBACK_PATH, type LoginClient, type LoginRequest, type LoginResult, chooseLoginClient, clientFor, storeLogin } from './transaction.js';
import { loginCommandText } from '../util/login-command.js';

/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** A device login under way: the codes to show, and what polling needs. */
export interface DeviceLogin {
  login: Pick<LoginClient, 'server' | 'scopes' | 'store' | 'client' | 'redirectUri' | 'keychainProblem' | 'dpopKey' | 'preRegistered'>;
  authorization: DeviceAuthorization;
  /** When polling stops: the codes' expiry or the --timeout, whichever is first (seconds since the epoch). */
  deadline: number;
}

/** A loopback redirect address for a client that has none yet; the browser login later listens on it when free. */
function placeholderRedirectUri(): string {
  const port = 49152 + Math.floor(Math.random() * 16000);
  return `http://127.0.0.1:${port}${CALLBACK_PATH}`;
}

/**
 * The first half of `login --device`: discover, choose the client (registered for the device
 * grant), and ask for the codes. Refused where the server has no device authorization endpoint,
 * and where its interval leaves no time to poll.
 */
export async function startDeviceLogin(deps: Deps, req: LoginRequest, notify: (text: string) => void): Promise<DeviceLogin> {
  const login = await chooseLoginClient(
    deps,
    { ...req, device: true },
    {
      notify,
      // Nothing listens: the device grant has no redirect. A saved registration's address is kept.
      listen: async (cached) => ({ redirectUri: cached ?? placeholderRedirectUri() }),
    },
  );
  const { as } = login.server;
  const authorization = await requestDeviceAuthorization(deps.http, as, login.client, { scopes: login.scopes, resource: login.server.resource, signal: deps.signal });
  const now = nowSeconds(deps);
  const lifetime = Math.min(authorization.expiresIn, req.timeoutSeconds);
  if (authorization.interval >= authorization.expiresIn) {
    throw new CliError(`The device authorization endpoint asks to wait ${authorization.interval} s between polls, but its code is valid for ${authorization.expiresIn} s only; refusing it.`, {
      code: 'protocol_error',
    });
  }
  if (authorization.interval >= lifetime) {
    throw new CliError(`The server asks to wait ${authorization.interval} s between polls, longer than --timeout ${req.timeoutSeconds}.`, {
      code: 'timeout',
      hint: `Give a --timeout above ${authorization.interval}.`,
    });
  }
  return { login, authorization, deadline: now + lifetime };
}

/**
 * The second half: polls the token endpoint at the server's interval (longer after each
 * slow_down) until the person approves, refuses, or the deadline passes, then stores the login.
 * A background poller passes `stillWanted`: once its login is cancelled it stops polling, and an
 * approval that comes after the cancel stores nothing.
 */
export async function finishDeviceLogin(deps: Deps, profile: string, started: DeviceLogin, stillWanted?: () => Promise<boolean>): Promise<LoginResult> {
  const { login, authorization } = started;
  const { as } = login.server;
  const tryAgain = `Try again:\n${loginCommandText({ baseUrl: login.server.baseUrl, profile, options: ['--device'] })}`;
  let interval = authorization.interval;
  for (;;) {
    if (nowSeconds(deps) + interval > started.deadline) {
      throw new CliError('The device code was not approved in time.', { code: 'timeout', hint: tryAgain });
    }
    await systemProcesses.sleep(interval * 1000, deps.signal);
    if (stillWanted && !(await stillWanted())) {
      throw new CliError('The device login was cancelled (by `school logout` or a newer login); it stopped waiting for the approval.', { code: 'login_failed' });
    }
    let poll: Awaited<ReturnType<typeof pollDeviceToken>>;
    try {
      poll = await pollDeviceToken(deps.http, as, login.client, {
        deviceCode: authorization.deviceCode,
        resource: login.server.resource,
        nowSeconds: nowSeconds(deps),
        signal: deps.signal,
        dpopKey: login.dpopKey,
      });
    } catch (err) {
      if (err instanceof ServerRefusal && err.error === 'expired_token') {
        throw new CliError('The device code expired before it was approved.', { code: 'timeout', hint: tryAgain });
      }
      throw err;
    }
    if (poll.kind === 'slow_down') interval += SLOW_DOWN_STEP_SECONDS;
    if (poll.kind !== 'done') continue;
    return storeLogin(
      deps,
      { profile, scopes: login.scopes, authMethod: login.client.authMethod, storage: login.store.kind, keychainProblem: login.keychainProblem, preRegistered: login.preRegistered },
      login.server,
      login.client,
      poll.result,
      stillWanted,
    );
  }
}

/** A device login as a pending login, so that a background poller can finish it (`--no-wait`). */
export function pendingDeviceLogin(profile: string, started: DeviceLogin): PendingLogin {
  const { login, authorization: a } = started;
  return {
    profile,
    baseUrl: login.server.baseUrl,
    issuer: login.server.as.issuer,
    resource: login.server.resource,
    clientId: login.client.clientId,
    authMethod: login.client.authMethod,
    redirectUri: login.redirectUri,
    state: 'device',
    codeVerifier: a.deviceCode,
    scopes: login.scopes,
    storage: login.store.kind,
    keychainProblem: login.keychainProblem,
    authorizationUrl: a.verificationUriComplete ?? a.verificationUri,
    expiresAt: started.deadline,
    deviceInterval: a.interval,
    dpopKey: login.dpopKey,
    ...(login.preRegistered ? { preRegistered: true } : {}),
  };
}

/** The device login a pending one describes, for the background poller. */
export async function deviceLoginOf(deps: Deps, pending: PendingLogin): Promise<DeviceLogin> {
  const server = await serverFor(deps, pending.baseUrl, pending.issuer, pending.profile);
  const client = await clientFor(deps, pending);
  const store = await deps.state.openStore(pending.storage);
  return {
    login: { server, scopes: pending.scopes, store, client, redirectUri: pending.redirectUri, keychainProblem: pending.keychainProblem, dpopKey: pending.dpopKey },
    authorization: {
      deviceCode: pending.codeVerifier,
      userCode: '',
      verificationUri: pending.authorizationUrl,
      expiresIn: pending.expiresAt - nowSeconds(deps),
      interval: pending.deviceInterval ?? DEFAULT_POLL_INTERVAL_SECONDS,
    },
    deadline: pending.expiresAt,
  };
}
