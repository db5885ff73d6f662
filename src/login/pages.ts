import type { Deps } from '../deps.js';
import { CliError } from '../errors.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';
import type { PendingLogin } from '../state/pending-login.js';
import { type LoginResult, completeLogin } from './transaction.js';
import type { LoopbackListener } from './loopback.js';

/** What the browser tab shows once the login completed. */
export const LOGGED_IN_PAGE = { ok: true, title: 'Logged in', message: 'You are logged in to school. You can close this tab and return to the terminal.' } as const;

/** What the browser tab shows when a newer login of the same profile replaced the one it came back for. */
export const REPLACED_PAGE = { title: 'Sign-in replaced', message: 'A newer login was started for this profile; use the link it printed.' } as const;

/** What the browser tab shows when the command stops before the login completed (Ctrl-C, a timeout). */
export const CANCELLED_PAGE = { title: 'Sign-in cancelled', message: 'The command-line login stopped. Return to the terminal.' } as const;

/** What the browser tab shows when the login fails after the redirect arrived. */
function failurePage(err: unknown): { title: string; message: string } {
  if (err instanceof ServerRefusal) return { title: 'Sign-in not completed', message: `The authorization server answered ${err.detail}. Return to the terminal.` };
  if (err instanceof CliError && err.code === 'invalid_callback') return { title: 'Sign-in refused', message: 'The response failed a security check and was not used. Return to the terminal.' };
  return { title: 'Sign-in failed', message: 'The sign-in could not be completed. Return to the terminal.' };
}

/**
 * Completes the login the browser came back for. When that fails, the tab is told why before the
 * error goes on, so the person at the browser is not left looking at a page that never loads.
 */
export async function completeForBrowser(deps: Deps, pending: PendingLogin, redirect: URL, listener: Pick<LoopbackListener, 'finish'>, stillWanted?: () => Promise<boolean>): Promise<LoginResult> {
  try {
    return await completeLogin(deps, pending, redirect, stillWanted);
  } catch (err) {
    await listener.finish({ ok: false, ...failurePage(err) });
    throw err;
  }
}
