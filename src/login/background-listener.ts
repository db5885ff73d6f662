import { type Deps, nowSeconds } from '../deps.js';
import { describeError } from '../errors.js';
import { fromOAuthError } from '../oauth/oauth-errors.js';
import { loginCommandText } from '../util/login-command.js';
import type { LoginOutcome, PendingLoginRecord } from '../state/pending-login.js';
import { redactText } from '../util/redact.js';
import { type Handshake, REPORT_FD } from './background.js';
import { type LoopbackListener, carriesState, listenForRedirect } from './loopback.js';
import { finishBrowserLogin, loggedInMessage, stillThisLogin } from './orchestrator.js';
import { CALLBACK_PATH, type LoginResult } from './transaction.js';
import { requireCommonJs } from '../util/require.js';

// The inside of `login --no-wait`: the detached process that holds the loopback listener and
// completes the saved login when the browser comes back (see background.ts for the outside).

/** Writes the listener's one report to its parent; nothing when nobody listens (run by hand). */
export async function reportToParent(message: Handshake): Promise<void> {
  const { writeSync, closeSync }: typeof import('node:fs') = requireCommonJs('node:fs');
  try {
    writeSync(REPORT_FD, `${JSON.stringify(message)}\n`);
    closeSync(REPORT_FD);
  } catch {
    // no report pipe
  }
}

/** How a login that completed is recorded for `login --wait`: what the person is told, never a secret. */
export function completedOutcome(profile: string, result: LoginResult, scopes: string[], at: number): LoginOutcome {
  return {
    profile,
    status: 'completed',
    message: loggedInMessage(result.user, result.profile.baseUrl),
    baseUrl: result.profile.baseUrl,
    user: result.user,
    warnings: result.warnings.length ? result.warnings.map((w) => redactText(w)) : undefined,
    scopes,
    at,
  };
}

export function outcomeOf(profile: string, err: unknown, at: number, baseUrl: string | undefined): LoginOutcome {
  const report = describeError(fromOAuthError(err));
  const timedOut = report.error === 'timeout';
  return {
    profile,
    status: timedOut ? 'timed_out' : 'failed',
    message: redactText(report.message),
    error: timedOut ? 'login_timeout' : report.error,
    // The listener's own hints speak of the one-step login.
    // It names the base URL: a first login has saved no profile that would remember it.
    hint: timedOut
      ? `Start a new one with \`${loginCommandText({ profile, baseUrl, options: ['--no-wait'] })}\`; give the person longer with --timeout.`
      : report.hint
        ? redactText(report.hint)
        : undefined,
    at,
  };
}

/**
 * The background listener itself (`__complete-login`): listens, reports its port, and completes
 * the pending login that names this process when the browser comes back. A login superseded
 * meanwhile (its record names another process, or none) is left alone.
 */
export async function runBackgroundListener(deps: Deps, p: { profile: string; port?: number; cachedRedirectUri?: string; timeoutSeconds: number }): Promise<void> {
  let listener: LoopbackListener | undefined;
  const ours = (record: PendingLoginRecord | undefined) => record?.listenerPid === process.pid && record.redirectUri === listener?.redirectUri;
  // A callback is this login's only when the pending login names this listener and carries its
  // state: a forged one from another local process is ignored, and the wait goes on.
  const isOwnCallback = async (url: URL) => {
    const record = await deps.state.pendingLoginRecord(p.profile).catch(() => undefined);
    return ours(record) && carriesState(url, record?.state);
  };
  try {
    listener = await listenForRedirect({
      port: p.port,
      cachedRedirectUri: p.cachedRedirectUri,
      path: CALLBACK_PATH,
      timeoutMs: p.timeoutSeconds * 1000,
      signal: deps.signal,
      platform: deps.platform,
      isOwnCallback,
    });
  } catch (err) {
    const report = describeError(err);
    await reportToParent({ error: report.error, message: report.message, hint: report.hint });
    throw err;
  }
  await reportToParent({ port: listener.port, redirectUri: listener.redirectUri });

  const ownRecord = async () => {
    const record = await deps.state.pendingLoginRecord(p.profile).catch(() => undefined);
    return ours(record) ? record : undefined;
  };
  // The login this listener serves, once the redirect came: nothing is stored unless it is still the profile's.
  let served: PendingLoginRecord | undefined;
  await finishBrowserLogin(deps, listener, {
    redirect: () => listener.callback,
    async pending() {
      const pending = await deps.state.pendingLogin(p.profile);
      served = pending && ours(pending) ? pending : undefined;
      return served ? pending : undefined;
    },
    stillWanted: async () => served !== undefined && (await stillThisLogin(deps, served)()),
    ownRecord,
    // The outcome before anything else: the pending login is removed only after it.
    async completed(result, pending) {
      await deps.state.saveLoginOutcome(completedOutcome(p.profile, result, pending.scopes, nowSeconds(deps)));
    },
    async failed(err) {
      const record = await ownRecord();
      if (record) await deps.state.saveLoginOutcome(outcomeOf(p.profile, err, nowSeconds(deps), record.baseUrl));
    },
  });
}
