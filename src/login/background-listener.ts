import { type Deps, nowSeconds } from '../deps.js';
import { describeError } from '../errors.js';
import { fromOAuthError } from '../oauth/oauth-errors.js';
import type { LoginOutcome, PendingLoginRecord } from '../state/pending-login.js';
import { redactText } from '../util/redact.js';
import { type Handshake, REPORT_FD } from './background.js';
import { CALLBACK_PATH, cacheApiDescription, loggedInMessage } from './login.js';
import { type LoopbackListener, listenForRedirect } from './loopback.js';
import { CANCELLED_PAGE, completeForBrowser } from './pages.js';
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

export function outcomeOf(profile: string, err: unknown, at: number): LoginOutcome {
  const report = describeError(fromOAuthError(err));
  const timedOut = report.error === 'timeout';
  return {
    profile,
    status: timedOut ? 'timed_out' : 'failed',
    message: redactText(report.message),
    error: timedOut ? 'login_timeout' : report.error,
    // The listener's own hints speak of the one-step login.
    hint: timedOut ? 'Start a new one with `school login --no-wait`; give the person longer with --timeout.' : report.hint ? redactText(report.hint) : undefined,
    at,
  };
}

/**
 * The background listener itself (`__complete-login`): listens, reports its port, and completes
 * the pending login that names this process when the browser comes back. A login superseded
 * meanwhile (its record names another process, or none) is left alone.
 */
export async function runBackgroundListener(
  deps: Deps,
  p: { profile: string; port?: number; cachedRedirectUri?: string; timeoutSeconds: number },
): Promise<void> {
  let listener: LoopbackListener;
  try {
    listener = await listenForRedirect({ port: p.port, cachedRedirectUri: p.cachedRedirectUri, path: CALLBACK_PATH, timeoutMs: p.timeoutSeconds * 1000, signal: deps.signal });
  } catch (err) {
    const report = describeError(err);
    await reportToParent({ error: report.error, message: report.message, hint: report.hint });
    throw err;
  }
  await reportToParent({ port: listener.port, redirectUri: listener.redirectUri });

  const ours = (record: PendingLoginRecord | undefined) => record?.listenerPid === process.pid && record.redirectUri === listener.redirectUri;
  let ok = false;
  let page: { title: string; message: string } = CANCELLED_PAGE;
  try {
    const redirect = await listener.callback;
    const pending = await deps.state.pendingLogin(p.profile);
    if (!pending || !ours(pending)) {
      page = { title: 'Sign-in replaced', message: 'A newer login was started for this profile; use the link it printed.' };
      return;
    }
    const result = await completeForBrowser(deps, pending, redirect, listener);
    ok = true;
    // The outcome before anything else: the pending login is removed only after it (finally).
    await deps.state.saveLoginOutcome({
      profile: p.profile,
      status: 'completed',
      message: loggedInMessage(result.user, result.profile.baseUrl),
      baseUrl: result.profile.baseUrl,
      user: result.user,
      warnings: result.warnings.length ? result.warnings.map((w) => redactText(w)) : undefined,
      scopes: pending.scopes,
      at: nowSeconds(deps),
    });
    await listener.finish({ ok: true, title: 'Logged in', message: 'You are logged in to school. You can close this tab and return to the terminal.' });
    await cacheApiDescription(deps, result.profile.baseUrl);
  } catch (err) {
    const record = await deps.state.pendingLoginRecord(p.profile).catch(() => undefined);
    // A login already recorded as completed stays so, whatever fails after it.
    if (!ok && ours(record)) {
      await deps.state.saveLoginOutcome(outcomeOf(p.profile, err, nowSeconds(deps))).catch(() => undefined);
    }
    throw err;
  } finally {
    if (!ok) await listener.finish({ ok: false, ...page });
    await listener.close();
    const record = await deps.state.pendingLoginRecord(p.profile).catch(() => undefined);
    if (record && ours(record)) await deps.state.removePendingLogin(p.profile, record.storage).catch(() => undefined);
  }
}
