import { loadApiDescription } from '../session/api-description.js';
import type { Deps } from '../deps.js';
import type { PendingLogin, PendingLoginRecord } from '../state/pending-login.js';
import { printable } from '../util/printable.js';
import type { LoopbackListener } from './loopback.js';
import { CANCELLED_PAGE, LOGGED_IN_PAGE, REPLACED_PAGE, completeForBrowser } from './pages.js';
import type { LoginResult } from './transaction.js';

/**
 * How one login ends, whatever its way in (browser or device, waiting or in the background): the
 * parts that differ. `endLogin` runs them in the one order every login ends in.
 */
export interface LoginEnd {
  /**
   * Completes the login: exchanges what came back (the redirect's code, the approved device code)
   * and stores the tokens, asking `stillWanted` under the profile's lock just before it stores.
   */
  complete(stillWanted: StillWanted): Promise<LoginResult>;
  /**
   * A background login's check that it is still the wanted one: its pending login still saved and
   * the same. A login started in the foreground is always wanted.
   */
  stillWanted?: StillWanted;
  /** Runs once the login completed, before anything else is said: a background login records its outcome here. */
  completed?(result: LoginResult): Promise<void>;
  /** Runs when the login failed before completing. */
  failed?(err: unknown): Promise<void>;
  /** The saved pending login, while it is still this run's: removed at the end, whatever happened. */
  ownRecord(): Promise<Pick<PendingLoginRecord, 'profile' | 'storage'> | undefined>;
}

export type StillWanted = () => Promise<boolean>;

const alwaysWanted: StillWanted = async () => true;

/**
 * The one end of every login: complete it (nothing is stored unless it is still wanted), say how
 * it went, cache the API description, and remove the pending login.
 */
export async function endLogin(deps: Deps, end: LoginEnd): Promise<LoginResult> {
  let ok = false;
  try {
    const result = await end.complete(end.stillWanted ?? alwaysWanted);
    ok = true;
    await end.completed?.(result);
    await cacheApiDescription(deps, result.profile.baseUrl);
    return result;
  } catch (err) {
    // A login already completed stays so, whatever fails after it.
    if (!ok) await end.failed?.(err).catch(() => undefined);
    throw err;
  } finally {
    const record = await end.ownRecord().catch(() => undefined);
    if (record) await deps.state.removePendingLogin(record.profile, record.storage).catch(() => undefined);
  }
}

/** Whether two pending-login records describe the same login: a newer one of the profile differs in these. */
function sameLogin(a: PendingLoginRecord, b: PendingLoginRecord): boolean {
  return a.listenerPid === b.listenerPid && a.state === b.state && a.authorizationUrl === b.authorizationUrl && a.expiresAt === b.expiresAt;
}

/**
 * A background login's check, made before anything is stored: the profile's pending login is
 * still the one this process was started for. Cancelled (`school logout`) or replaced by a newer
 * login, it stores nothing.
 */
export function stillThisLogin(deps: Pick<Deps, 'state'>, started: PendingLoginRecord): StillWanted {
  return async () => {
    const now = await deps.state.pendingLoginRecord(started.profile);
    return now !== undefined && sameLogin(now, started);
  };
}

/** How one browser login is received: where the redirect comes from, and what the caller records on the way. */
export interface BrowserLoginSteps {
  /** The redirect back from the browser (or pasted back by the person). */
  redirect(): Promise<URL>;
  /** The pending login the redirect completes, read once it arrived; undefined when a newer login replaced it. */
  pending(): Promise<PendingLogin | undefined>;
  /** The saved pending login, while it is still this run's: removed at the end, whatever happened. */
  ownRecord(): Promise<Pick<PendingLoginRecord, 'profile' | 'storage'> | undefined>;
  /** A background listener's check that its login is still wanted (see stillThisLogin). */
  stillWanted?: StillWanted;
  /** Runs once the login completed, before the browser is told: a background listener records the outcome here. */
  completed?(result: LoginResult, pending: PendingLogin): Promise<void>;
  /** Runs when the login failed before completing. */
  failed?(err: unknown): Promise<void>;
}

/**
 * A browser login's end, the waiting `school login` and the `--no-wait` background listener
 * alike: receive the redirect, then end the login as every login ends (endLogin), telling the
 * browser tab how it went. Undefined when a newer login replaced this one.
 */
export async function finishBrowserLogin(deps: Deps, listener: LoopbackListener, steps: BrowserLoginSteps): Promise<{ result: LoginResult; pending: PendingLogin } | undefined> {
  let told = false;
  let page: { title: string; message: string } = CANCELLED_PAGE;
  try {
    let pending: PendingLogin | undefined;
    const result = await endLogin(deps, {
      async complete(stillWanted) {
        const redirect = await steps.redirect();
        pending = await steps.pending();
        if (!pending) {
          page = REPLACED_PAGE;
          throw new LoginReplaced();
        }
        return completeForBrowser(deps, pending, redirect, listener, stillWanted);
      },
      stillWanted: steps.stillWanted,
      async completed(result) {
        await steps.completed?.(result, pending!);
        told = true;
        await listener.finish(LOGGED_IN_PAGE);
      },
      failed: async (err) => {
        if (!(err instanceof LoginReplaced)) await steps.failed?.(err);
      },
      ownRecord: steps.ownRecord,
    });
    return { result, pending: pending! };
  } catch (err) {
    if (err instanceof LoginReplaced) return undefined;
    throw err;
  } finally {
    if (!told) await listener.finish({ ok: false, ...page });
    await listener.close();
  }
}

/** A redirect that came back for a login a newer one replaced: nothing to complete. */
class LoginReplaced extends Error {}

/** "Logged in as Ada Lovelace on https://… (profile work)."; a server that does not say who signed in is named as such. */
export function loggedInMessage(user: string | undefined, where: string): string {
  // Both come from servers (claims, a base URL's echo): shown as plain text.
  return user ? `Logged in as ${printable(user)} on ${printable(where)}.` : `Logged in on ${printable(where)}; the server does not say who signed in.`;
}

/** Completion, `school api` and `school mcp` read the API description from the cache; a failure here costs nothing. */
async function cacheApiDescription(deps: Deps, baseUrl: string): Promise<void> {
  await loadApiDescription(deps, baseUrl, { signal: AbortSignal.any([deps.signal, AbortSignal.timeout(3000)]) }).catch(() => undefined);
}
