import type { Command } from 'commander';
import type { Deps } from '../../deps.js';
import { CliError, UsageError } from '../../errors.js';
import { CALLBACK_PATH, cacheApiDescription, completeLogin, prepareLogin } from '../../login/login.js';
import { type LoopbackListener, startLoopback } from '../../login/loopback.js';
import { waitForRedirect } from '../../login/redirect-wait.js';
import { parseScopes } from '../../login/scopes.js';
import { ServerRefusal } from '../../oauth/oauth-errors.js';
import { type GlobalOptions, baseUrlFor, profileName, profileSuffix } from '../../options.js';
import type { PendingLogin } from '../../state/pending-login.js';
import { booleanFlag, collect, defineCommand, globalOptions, listFlag, stringFlag } from '../command.js';

export interface LoginOptions extends GlobalOptions {
  scope?: string[];
  /** false with --no-browser */
  browser: boolean;
  port?: string;
  timeout?: string;
  confidential: boolean;
  insecureStorage: boolean;
  clientMetadataUrl?: string;
}

export const DEFAULT_LOGIN_TIMEOUT_SECONDS = 300;

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) throw new UsageError(`Invalid --port "${value}": use a number from 1 to 65535.`);
  return n;
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LOGIN_TIMEOUT_SECONDS;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || n > 86_400) throw new UsageError(`Invalid --timeout "${value}": use a number of seconds from 1 to 86400.`);
  return n;
}

/** A fixed --port; else the cached registration's port when free (no new registration needed); else any free port. */
async function listen(deps: Deps, port: number | undefined, cachedRedirectUri: string | undefined, timeoutMs: number): Promise<LoopbackListener> {
  const on = (p: number) => startLoopback({ port: p, path: CALLBACK_PATH, timeoutMs, signal: deps.signal });
  if (port !== undefined) return on(port);
  if (cachedRedirectUri) {
    try {
      return await on(Number(new URL(cachedRedirectUri).port));
    } catch (err) {
      if (!(err instanceof CliError && err.code === 'port_in_use')) throw err;
    }
  }
  return on(0);
}

/** What the browser tab shows when the login fails after the redirect arrived. */
function failurePage(err: unknown): { title: string; message: string } {
  if (err instanceof ServerRefusal) return { title: 'Sign-in not completed', message: `The authorization server answered ${err.detail}. Return to the terminal.` };
  if (err instanceof CliError && err.code === 'invalid_callback') return { title: 'Sign-in refused', message: 'The response failed a security check and was not used. Return to the terminal.' };
  return { title: 'Sign-in failed', message: 'The sign-in could not be completed. Return to the terminal.' };
}

async function run(deps: Deps, opts: LoginOptions): Promise<void> {
  const profile = profileName(opts, deps.env);
  const port = parsePort(opts.port);
  const timeoutSeconds = parseTimeout(opts.timeout);
  const baseUrl = baseUrlFor(opts, deps.env, await deps.state.profile(profile));
  if (!baseUrl) throw new UsageError('No base URL: pass --base-url https://your-school.example (or set SCHOOL_BASE_URL).');
  const notify = (text: string) => deps.io.err.write(text);

  let listener: LoopbackListener | undefined;
  let pending: PendingLogin | undefined;
  let page = { title: 'Sign-in cancelled', message: 'The command-line login stopped. Return to the terminal.' };
  let ok = false;
  try {
    pending = await prepareLogin(
      deps,
      {
        profile,
        baseUrl,
        scopes: opts.scope ? parseScopes(opts.scope) : undefined,
        timeoutSeconds,
        confidential: opts.confidential,
        insecureStorage: opts.insecureStorage,
        clientMetadataUrl: opts.clientMetadataUrl || deps.env.SCHOOL_CLIENT_METADATA_URL || undefined,
      },
      {
        notify,
        listen: async (cachedRedirectUri) => (listener = await listen(deps, port, cachedRedirectUri, timeoutSeconds * 1000)),
      },
    );
    if (!listener) throw new CliError('The login was prepared without a listener for the redirect.', { code: 'internal_error' });
    const redirect = await waitForRedirect(deps, { listener, authorizationUrl: pending.authorizationUrl, openBrowser: opts.browser, timeoutSeconds });
    let result: Awaited<ReturnType<typeof completeLogin>>;
    try {
      result = await completeLogin(deps, pending, redirect);
    } catch (err) {
      page = failurePage(err);
      throw err;
    }
    ok = true;
    await listener.finish({ ok: true, title: 'Logged in', message: 'You are logged in to school. You can close this tab and return to the terminal.' });
    await cacheApiDescription(deps, result.profile.baseUrl);
    for (const warning of result.warnings) deps.io.err.write(`Warning: ${warning}\n`);
    const where = `${result.profile.baseUrl}${profileSuffix(profile)}`;
    deps.io.err.write(result.user ? `Logged in as ${result.user} on ${where}.\n` : `Logged in on ${where}; the server does not say who signed in.\n`);
    if (deps.verbose) deps.io.err.write(`Credentials are in ${result.location}.\n`);
  } finally {
    if (!ok) await listener?.finish({ ok: false, ...page });
    await listener?.close();
    if (pending) await deps.state.removePendingLogin(pending.profile, pending.storage).catch(() => undefined);
  }
}

export const loginCommand = defineCommand<LoginOptions>({
  name: 'login',
  description: 'sign in through the browser and store the tokens in the OS keychain',
  examples: `
Examples:
  school login --base-url https://your-school.example
  school login --scope courses:write
  school login --no-browser --profile work`,
  configure(cmd: Command) {
    cmd
      .option('--scope <scopes>', 'scopes to request, space- or comma-separated (repeatable)', collect)
      .option('--no-browser', 'print the URL instead of opening a browser (SSH, headless)')
      .option('--port <n>', 'loopback port for the redirect (default: a free one)')
      .option('--timeout <seconds>', 'how long to wait for the browser (default 300)')
      .option('--confidential', 'register as a confidential client (client_secret_post, or client_secret_basic where the server does not list it)')
      .option('--insecure-storage', 'store secrets in a 0600 plain-text file instead of the keychain')
      .option('--client-metadata-url <url>', 'use this client ID metadata document URL as client_id, where supported');
  },
  toOptions: (raw) => ({
    ...globalOptions(raw),
    scope: listFlag(raw, 'scope'),
    browser: raw.browser !== false,
    port: stringFlag(raw, 'port'),
    timeout: stringFlag(raw, 'timeout'),
    confidential: booleanFlag(raw, 'confidential'),
    insecureStorage: booleanFlag(raw, 'insecureStorage'),
    clientMetadataUrl: stringFlag(raw, 'clientMetadataUrl'),
  }),
  run,
});
