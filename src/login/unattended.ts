import { AuthError } from '../errors.js';
import { seedCommands } from '../session/ci-seeds.js';
import type { Env } from '../types/env.js';
import { loginCommandText } from '../util/login-command.js';

/** Whether we run in CI: `CI` set to anything but empty, `0` or `false` (the convention CI services share). */
export function isCi(env: Env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/**
 * Why a login that waits for a browser must not start here, if it must not: in CI and in headless
 * mode (a CI seed in SCHOOL_REFRESH_TOKEN) nobody will open the browser, and waiting for one would
 * only hang the job.
 */
export function unattendedLoginError(env: Env, baseUrl?: string): AuthError | undefined {
  const why = env.SCHOOL_REFRESH_TOKEN ? 'SCHOOL_REFRESH_TOKEN is set (headless mode)' : isCi(env) ? `this is a CI job (CI=${env.CI})` : undefined;
  if (!why) return undefined;
  return new AuthError(
    `A login would wait for a browser, and ${why}: give the credentials in the environment instead, as SCHOOL_TOKEN, or as SCHOOL_REFRESH_TOKEN with SCHOOL_CLIENT_ID (and SCHOOL_CLIENT_SECRET) and SCHOOL_BASE_URL.`,
    {
      code: 'login_unattended',
      hint: `Mint a seed at a desk (not in the job), then store the printed values as the job's secrets:\n${seedCommands(baseUrl)}\nOr start a login for a person to finish:\n${loginCommandText({ baseUrl, options: ['--no-wait'] })}`,
    },
  );
}
