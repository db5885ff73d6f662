import { loadApiDescription } from '../session/api-description.js';
import type { Deps } from '../deps.js';
import type { PendingLogin, PendingLoginRecord } from '../state/pending-login.js';
import { printable } from '../util/printable.js';
import type { LoopbackListener } from './loopback.js';
import { CANCELLED_PAGE, LOGGED_IN_PAGE, REPLACED_PAGE, completeForBrowser } from './pages.js';
import type { LoginResult } from './transaction.js';

/** How one browser login is received: where the redirect comes from, and what the caller records on the way. */
export interface BrowserLoginSteps {
  /** The redirect back from the browser (or pasted back by the person). */
  redirect(): Promise<URL>;
  /** The pending login the redirect completes, read once it arrived; undefined when a newer login replaced it. */
  pending(): Promise<PendingLogin | undefined>;
  /** The saved pending login, while it is still this run's: removed at the end, whatever happened. */
  ownRecord(): Promise<Pick<PendingLoginRecord, 'profile' | 'storage'> | undefined>;
  /** Runs once the login completed, before the browser is told: a background listener records the outcome here. */
  completed?(result: LoginResult, pending: PendingLogin): Promise<void>;
  /** Runs when the login failed before completing. */
  failed?(err: unknown): Promise<void>;
}

/**
 * The one sequence that ends every browser login, the waiting `school login` and the `--no-wait`
 * background listener alike: receive the redirect, complete the pending login, tell the browser
 * tab how it went, cache the API description, and remove the pending login. Undefined when a
 * newer login replaced this one.
 */
export async function finishBrowserLogin(deps: Deps, listener: LoopbackListener, steps: BrowserLoginSteps): Promise<{ result: LoginResult; pending: PendingLogin } | undefined> {
  let ok = false;
  let page: { title: string; message: string } = CANCELLED_PAGE;
  try {
    const redirect = await steps.redirect();
    const pending = await steps.pending();
    if (!pending) {
      page = REPLACED_PAGE;
      return undefined;
    }
    const result = await completeForBrowser(deps, pending, redirect, listener);
    ok = true;
    await steps.completed?.(result, pending);
    await listener.finish(LOGGED_IN_PAGE);
    await cacheApiDescription(deps, result.profile.baseUrl);
    return { result, pending };
  } catch (err) {
    // A login already completed stays so, whatever fails after it.
    if (!ok) await steps.failed?.(err).catch(() => undefined);
    throw err;
  } finally {
    if (!ok) await listener.finish({ ok: false, ...page });
    await listener.close();
    const record = await steps.ownRecord().catch(() => undefined);
    if (record) await deps.state.removePendingLogin(record.profile, record.storage).catch(() => undefined);
  }
}

/** "Logged in as Ada Lovelace on https://… (profile work)."; a server that does not say who signed in is named as such. */
export function loggedInMessage(user: string | undefined, where: string): string {
  // Both come from servers (claims, a base URL's echo): shown as plain text.
  return user ? `Logged in as ${printable(user)} on ${printable(where)}.` : `Logged in on ${printable(where)}; the server does not say who signed in.`;
}

/** Completion, `school api` and `school mcp` read the API description from the cache; a failure here costs nothing. */
export async function cacheApiDescription(deps: Deps, baseUrl: string): Promise<void> {
  await loadApiDescription(deps, baseUrl, { signal: AbortSignal.any([deps.signal, AbortSignal.timeout(3000)]) }).catch(() => undefined);
}
