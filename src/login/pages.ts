import { CliError } from '../errors.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';

/** What the browser tab shows when the login fails after the redirect arrived. */
export function failurePage(err: unknown): { title: string; message: string } {
  if (err instanceof ServerRefusal) return { title: 'Sign-in not completed', message: `The authorization server answered ${err.detail}. Return to the terminal.` };
  if (err instanceof CliError && err.code === 'invalid_callback') return { title: 'Sign-in refused', message: 'The response failed a security check and was not used. Return to the terminal.' };
  return { title: 'Sign-in failed', message: 'The sign-in could not be completed. Return to the terminal.' };
}
