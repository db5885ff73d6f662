import { type Deps, nowSeconds } from '../deps.js';
import type { PendingLogin, PendingLoginRecord } from '../state/pending-login.js';
import { type BackgroundListener, type Processes, cancelPendingLogin, startBackgroundListener, systemProcesses } from './background.js';
import { type LoginRequest, prepareLogin } from './transaction.js';

/**
 * The first step of a two-step login (`login --no-wait`, and `school mcp` asking the host to send
 * the person to the URL): replaces a login left pending for the profile, prepares this one and
 * leaves a background listener waiting for the browser. The caller shows the URL;
 * `waitForPendingLogin` (background.ts) learns how it ended.
 */
export async function startPendingLogin(deps: Deps, request: LoginRequest, p: { port?: number; notify(text: string): void }): Promise<{ pending: PendingLogin; replacedEarlier: boolean }> {
  const replacedEarlier = await cancelPendingLogin(deps, request.profile);
  let background: BackgroundListener | undefined;
  try {
    const pending = await prepareLogin(deps, request, {
      notify: p.notify,
      async listen(cachedRedirectUri) {
        background = await startBackgroundListener({ profile: request.profile, port: p.port, cachedRedirectUri, timeoutSeconds: request.timeoutSeconds });
        return { redirectUri: background.redirectUri, listenerPid: background.pid };
      },
    });
    return { pending, replacedEarlier };
  } catch (err) {
    await background?.stop();
    throw err;
  }
}

/** A sign-in for the person to open: the one found waiting for the profile, or one started now. */
export interface SignIn {
  url: string;
  /** Seconds since the epoch. */
  expiresAt: number;
  /** False when it was already waiting (started by another process or an earlier call). */
  started: boolean;
}

/** The lock held while a sign-in is looked for and started, so that two processes of one profile start one between them. */
const signInLockName = (profile: string): string => `sign-in-${profile}`;

/**
 * The profile's pending login, when its listener still waits for the browser and it asks for at
 * least what this request needs: the same base URL, and for a step-up every scope to be added.
 */
export async function waitingSignIn(
  deps: Pick<Deps, 'state' | 'clock'>,
  request: Pick<LoginRequest, 'profile' | 'baseUrl' | 'addScopes'>,
  processes: Pick<Processes, 'alive'> = systemProcesses,
): Promise<PendingLoginRecord | undefined> {
  const record = await deps.state.pendingLoginRecord(request.profile);
  if (!record?.listenerPid || !processes.alive(record.listenerPid)) return undefined;
  const now = nowSeconds(deps);
  // A pushed request the server no longer keeps would only show an error page.
  if (record.expiresAt <= now || (record.openBy !== undefined && record.openBy <= now)) return undefined;
  if (record.baseUrl !== request.baseUrl) return undefined;
  return (request.addScopes ?? []).every((s) => record.scopes.includes(s)) ? record : undefined;
}

/**
 * A sign-in for `school mcp`: the one already waiting for the profile (whichever process started
 * it) when it will do, else a new one with its listener detached, so that it outlives the server
 * that handed out its URL. Looked for and started under one lock: at most one pending sign-in per
 * profile across processes, and a URL handed out is not replaced by a second server's.
 */
export async function joinOrStartSignIn(deps: Deps, request: LoginRequest, p: { notify(text: string): void }, processes: Pick<Processes, 'alive'> = systemProcesses): Promise<SignIn> {
  return deps.state.locked(signInLockName(request.profile), deps.signal, async () => {
    const waiting = await waitingSignIn(deps, request, processes);
    if (waiting) return { url: waiting.authorizationUrl, expiresAt: waiting.expiresAt, started: false };
    const { pending } = await startPendingLogin(deps, request, p);
    return { url: pending.authorizationUrl, expiresAt: pending.expiresAt, started: true };
  });
}
