import type { Command } from 'commander';
import type { Deps } from '../../deps.js';
import { isCodeWithExit } from '../../error-codes.js';
import { AuthError, CliError, ExitCode, UsageError } from '../../errors.js';
import { cancelPendingLogin, waitForPendingLogin } from '../../login/background.js';
import { startPendingLogin } from '../../login/two-step.js';
import { finishBrowserLogin, loggedInMessage } from '../../login/orchestrator.js';
import { CALLBACK_PATH, type LoginRequest, type ScopeFlag, prepareLogin } from '../../login/transaction.js';
import { type LoopbackListener, listenForRedirect } from '../../login/loopback.js';
import { checkNewProfileName } from '../../platform/profile-names.js';
import { waitForRedirect } from '../../login/redirect-wait.js';
import { parseLoginPort, portProblem } from '../../login/ports.js';
import { parseScopes } from '../../login/scopes.js';
import { unattendedLoginError } from '../../login/unattended.js';
import { type GlobalOptions, loginCommandFor, parseSeconds, profileSuffix } from '../../options.js';
import { loginCommandText } from '../../util/login-command.js';
import type { Target } from '../../session/target.js';
import type { PendingLogin } from '../../state/pending-login.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { redactText } from '../../util/redact.js';
import { booleanFlag, collect, commandTarget, defineCommand, globalOptions, listFlag, stringFlag } from '../command.js';
import { deviceLogin, startBackgroundDeviceLogin } from './device-login.js';

export interface LoginOptions extends GlobalOptions {
  /** Replaces the default set. */
  scope?: string[];
  /** Added to the scopes the profile holds now. */
  addScope?: string[];
  /** false with --no-browser: the printed-URL login (the person opens the URL, here or on another machine). */
  browser: boolean;
  port?: string;
  timeout?: string;
  confidential: boolean;
  insecureStorage: boolean;
  clientMetadataUrl?: string;
  /** true with --wait (finish a pending login), false with --no-wait (start one and return). */
  wait?: boolean;
  /** The device authorization grant (RFC 8628): approve on any device with a code. */
  device?: boolean;
  /** false with --no-dpop: bearer tokens even where the server offers DPoP. */
  dpop: boolean;
}

export const DEFAULT_LOGIN_TIMEOUT_SECONDS = 300;

export function parseTimeout(value: string | undefined): number;
export function parseTimeout(value: string | undefined, fallback: undefined): number | undefined;
export function parseTimeout(value: string | undefined, fallback: number | undefined = DEFAULT_LOGIN_TIMEOUT_SECONDS): number | undefined {
  return value === undefined ? fallback : parseSeconds('--timeout', value);
}

/** What `login --json` prints: what was done, never a secret. */
function loggedInJson(p: { profile: string; baseUrl: string; user?: string; scopes?: string[]; storage?: string }): string {
  return `${terminalSafeJson({ status: 'logged_in', profile: p.profile, base_url: p.baseUrl, user: p.user ?? null, scopes: p.scopes ?? [], storage: p.storage ?? null })}\n`;
}

function waitHint(profile: string): string {
  return loginCommandText({ profile, options: ['--wait'] });
}

/** The request both the waiting and the two-step login prepare. */
function loginRequest(deps: Deps, opts: LoginOptions, target: Target, timeoutSeconds: number): LoginRequest {
  const { profile, baseUrl } = target;
  if (!baseUrl) throw new UsageError('No base URL: pass --base-url https://your-school.example (or set SCHOOL_BASE_URL).');
  if (opts.scope && opts.addScope) {
    throw new UsageError('Give --scope or --add-scope, not both: --scope asks for exactly those scopes, --add-scope for the ones held now plus these.');
  }
  return {
    profile,
    baseUrl,
    scopes: opts.scope ? parseScopes(opts.scope) : undefined,
    addScopes: opts.addScope ? parseScopes(opts.addScope) : undefined,
    timeoutSeconds,
    confidential: opts.confidential,
    insecureStorage: opts.insecureStorage,
    clientMetadataUrl: opts.clientMetadataUrl || deps.env.SCHOOL_CLIENT_METADATA_URL || undefined,
    retryCommand: (scopes, flag) => loginCommandLine(opts, scopes, flag),
    noDpop: !opts.dpop,
  };
}

/**
 * `login --no-wait`: prepares the login, leaves a detached listener waiting for the browser, prints
 * the URL and returns at once. A pending login of the same profile is replaced.
 */
async function startTwoStepLogin(deps: Deps, opts: LoginOptions, target: Target): Promise<void> {
  const { profile } = target;
  const port = parseLoginPort(opts.port);
  const timeoutSeconds = parseTimeout(opts.timeout);
  const request = loginRequest(deps, opts, target, timeoutSeconds);
  const notify = (text: string) => deps.io.err.write(text);
  const { pending, replacedEarlier } = await startPendingLogin(deps, request, { port, notify });
  if (replacedEarlier) notify(`The earlier pending login${profileSuffix(profile)} was replaced.\n`);
  const time = (epoch: number) => new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
  const when = pending.openBy === undefined
    ? `before ${time(pending.expiresAt)}`
    : `open it before ${time(pending.openBy)}: the server keeps the request behind it only that long; the sign-in may then take until ${time(pending.expiresAt)}`;
  deps.io.err.write(`Open this URL in a browser to sign in (${when}):\n${pending.authorizationUrl}\nThen run \`${waitHint(profile)}\` to learn how it went.\n`);
  if (opts.json) {
    const openBy = pending.openBy === undefined ? {} : { open_by: pending.openBy };
    deps.io.out.write(`${terminalSafeJson({ url: pending.authorizationUrl, profile, expires_at: pending.expiresAt, ...openBy })}\n`);
  }
}

/** `login --wait`: the outcome of the profile's pending login; exit 4 unless it completed. */
async function finishTwoStepLogin(deps: Deps, opts: LoginOptions, profile: string): Promise<void> {
  const others = [opts.scope && '--scope', opts.addScope && '--add-scope', opts.port && '--port', opts.confidential && '--confidential', opts.insecureStorage && '--insecure-storage', opts.clientMetadataUrl && '--client-metadata-url', !opts.dpop && '--no-dpop'].filter(Boolean);
  if (others.length) throw new UsageError(`--wait finishes the login \`school login --no-wait\` started: give ${others.join(', ')} to that one.`);
  const result = await waitForPendingLogin(deps, profile, { maxWaitSeconds: parseTimeout(opts.timeout, undefined) });
  if (result.kind === 'none') {
    throw new AuthError(`No login is pending${profileSuffix(profile)}.`, { code: 'no_pending_login', hint: 'Start one with `school login --no-wait`, then open the URL it prints.' });
  }
  if (result.kind === 'still_pending') {
    const until = new Date(result.expiresAt * 1000).toISOString().replace('.000Z', 'Z');
    throw new AuthError(`The login${profileSuffix(profile)} is still waiting for the browser (until ${until}).`, { code: 'login_pending', hint: `Run \`${waitHint(profile)}\` again once the URL was opened.` });
  }
  const { outcome } = result;
  if (outcome.status !== 'completed') {
    throw new AuthError(outcome.status === 'timed_out' ? `${outcome.message.replace(/\.$/, '')}; the pending login${profileSuffix(profile)} was abandoned.` : outcome.message, {
      // A failure that is not itself a call to log in (access_denied, a network error…) is login_failed,
      // so that --wait exits 4 for every login that did not complete; the message names the cause.
      code: isCodeWithExit(outcome.error, ExitCode.auth) ? outcome.error : 'login_failed',
      hint: outcome.hint ?? 'Start a new one with `school login --no-wait`.',
    });
  }
  const saved = await deps.state.profile(profile);
  // The outcome file was written by the background listener from server answers: shown as plain, redacted text.
  for (const warning of outcome.warnings ?? []) deps.io.err.write(`Warning: ${printable(redactText(warning))}\n`);
  const baseUrl = outcome.baseUrl ?? saved?.baseUrl;
  deps.io.err.write(
    baseUrl ? `${loggedInMessage(outcome.user, `${baseUrl}${profileSuffix(profile)}`)}\n` : `${printable(redactText(outcome.message)).replace(/\.$/, '')}${profileSuffix(profile)}.\n`,
  );
  if (opts.json) deps.io.out.write(loggedInJson({ profile, baseUrl: outcome.baseUrl ?? saved?.baseUrl ?? '', user: outcome.user, scopes: outcome.scopes, storage: saved?.storage }));
}

/** This login again, as a whole command line, with the flags the user gave and other scopes (for `--scope` or `--add-scope`). */
export function loginCommandLine(opts: LoginOptions, scopes: string[], flag: ScopeFlag = '--scope'): string {
  const options: Array<string | [string, string]> = [];
  for (const [name, value] of [
    ['--port', opts.port],
    ['--timeout', opts.timeout],
    ['--client-metadata-url', opts.clientMetadataUrl],
  ] as const) {
    if (value !== undefined) options.push([name, value]);
  }
  if (!opts.browser) options.push('--no-browser');
  // --wait never gets this far (it prepares nothing); a retried --no-wait login is again a two-step one.
  if (opts.wait === false) options.push('--no-wait');
  if (opts.confidential) options.push('--confidential');
  if (opts.insecureStorage) options.push('--insecure-storage');
  if (opts.device) options.push('--device');
  if (!opts.dpop) options.push('--no-dpop');
  if (opts.json) options.push('--json');
  if (opts.verbose) options.push('--verbose');
  return loginCommandText({ baseUrl: opts.baseUrl, profile: opts.profile, ...(flag === '--scope' ? { scope: scopes } : { addScope: scopes }), options });
}

async function run(deps: Deps, opts: LoginOptions): Promise<void> {
  const target = await commandTarget(deps, opts);
  const { profile } = target;
  if (opts.wait === true) return finishTwoStepLogin(deps, opts, profile);
  // The profile's name names its files: one that would collide with another's on this system is refused.
  checkNewProfileName(profile, deps.platform, Object.keys(await deps.state.profiles()));
  if (opts.device && (opts.port || !opts.browser)) throw new UsageError(`--device uses no browser and no loopback port: leave out ${opts.port ? '--port' : '--no-browser'}.`);
  if (opts.wait === false && opts.device) {
    if (await cancelPendingLogin(deps, profile)) deps.io.err.write(`The earlier pending login${profileSuffix(profile)} was replaced.\n`);
    return startBackgroundDeviceLogin(deps, loginRequest(deps, opts, target, parseTimeout(opts.timeout)), waitHint(profile), Boolean(opts.json));
  }
  if (opts.wait === false) return startTwoStepLogin(deps, opts, target);
  // Before anything else, registration included: nobody will open a browser here.
  const unattended = unattendedLoginError(deps.env);
  if (unattended) throw unattended;
  if (opts.device) {
    await cancelPendingLogin(deps, profile).catch(() => false);
    return deviceLogin(deps, loginRequest(deps, opts, target, parseTimeout(opts.timeout)), loggedInJson, Boolean(opts.json));
  }
  const port = parseLoginPort(opts.port);
  const timeoutSeconds = parseTimeout(opts.timeout);
  const request = loginRequest(deps, opts, target, timeoutSeconds);
  // This login replaces one left pending by `--no-wait`.
  await cancelPendingLogin(deps, profile).catch(() => false);

  try {
    await browserLogin(deps, opts, request, port, timeoutSeconds);
  } catch (err) {
    // The server refused the saved registration only when the browser came back (on the redirect or
    // at the token endpoint): it is forgotten, and one more round registers anew.
    if (!(err instanceof CliError && err.code === 'invalid_client')) throw err;
    deps.io.err.write(`${err.message.replace(/, and the next login registers again\.$/, '.')} Registering again; sign in once more.\n`);
    await browserLogin(deps, opts, request, port, timeoutSeconds);
  }
}

/** One round of the waiting login: prepare, send the browser, receive the redirect, complete, say so. */
async function browserLogin(deps: Deps, opts: LoginOptions, request: LoginRequest, port: number | undefined, timeoutSeconds: number): Promise<void> {
  const { profile } = request;
  const notify = (text: string) => deps.io.err.write(text);
  let listener: LoopbackListener | undefined;
  let pending: PendingLogin;
  try {
    pending = await prepareLogin(deps, request, {
      notify,
      listen: async (cachedRedirectUri) =>
        (listener = await listenForRedirect({
          port,
          cachedRedirectUri,
          path: CALLBACK_PATH,
          timeoutMs: timeoutSeconds * 1000,
          signal: deps.signal,
          retryCommand: loginCommandFor(profile, request.baseUrl),
          platform: deps.platform,
        })),
    });
  } catch (err) {
    await listener?.close();
    throw err;
  }
  if (!listener) throw new CliError('The login was prepared without a listener for the redirect.', { code: 'internal_error' });
  const received = listener;
  const done = await finishBrowserLogin(deps, received, {
    redirect: () => waitForRedirect(deps, { listener: received, authorizationUrl: pending.authorizationUrl, openBrowser: opts.browser, timeoutSeconds }),
    pending: async () => pending,
    ownRecord: async () => pending,
  });
  if (!done) throw new CliError('The login was replaced before it completed.', { code: 'internal_error' });
  const { result } = done;
  for (const warning of result.warnings) deps.io.err.write(`Warning: ${printable(warning)}\n`);
  deps.io.err.write(`${loggedInMessage(result.user, `${result.profile.baseUrl}${profileSuffix(profile)}`)}\n`);
  if (deps.verbose) deps.io.err.write(`Credentials are in ${result.location}.\n`);
  if (opts.json) deps.io.out.write(loggedInJson({ profile, baseUrl: result.profile.baseUrl, user: result.user, scopes: pending.scopes, storage: result.profile.storage }));
}

export const loginCommand = defineCommand<LoginOptions>({
  name: 'login',
  description: 'sign in through the browser and store the tokens in the OS keychain',
  examples: `
Examples:
  school login --base-url https://your-school.example
  school login --add-scope courses:write    # the scopes the profile holds now, plus this one
  school login --scope courses:read         # exactly this one (and openid, offline_access)
  school login --no-browser --profile work
  school login --no-wait --json             # print the URL and return; a person opens it
  school login --wait                       # then: exit 0 once that login completed
  school login --device                     # approve on a phone or another computer with a code`,
  configure(cmd: Command) {
    cmd
      .option('--scope <scopes>', 'the scopes to request instead of the default set, space- or comma-separated (repeatable)', collect)
      .option('--add-scope <scopes>', 'request the scopes the profile holds now plus these (repeatable)', collect)
      .option('--no-browser', 'print the URL instead of opening a browser (over SSH, or without a display)')
      .option('--port <n>', 'loopback port for the redirect (default: the one registered last time, else a free one)')
      .option('--timeout <seconds>', 'how long to wait for the browser (default 300); with --wait, how long to wait at most')
      // --wait first: then neither flag given leaves the value unset, which is the waiting login.
      .option('--wait', 'wait for the login started with --no-wait: exit 0 when it completed, 4 otherwise')
      .option('--no-wait', 'start the login, print the URL and return at once; a background listener finishes it')
      .option('--confidential', 'register as a confidential client (client_secret_post, or client_secret_basic where the server does not list it)')
      .option('--insecure-storage', 'store secrets in a 0600 plain-text file instead of the keychain')
      .option('--client-metadata-url <url>', 'use this client ID metadata document URL as client_id, where supported')
      .option('--device', 'sign in on any device with a code (device authorization, where the server offers it)')
      .option('--no-dpop', 'get bearer tokens, usable by other tools, even where the server offers DPoP');
  },
  toOptions: (raw) => ({
    ...globalOptions(raw),
    scope: listFlag(raw, 'scope'),
    addScope: listFlag(raw, 'addScope'),
    browser: raw.browser !== false,
    port: stringFlag(raw, 'port'),
    timeout: stringFlag(raw, 'timeout'),
    confidential: booleanFlag(raw, 'confidential'),
    insecureStorage: booleanFlag(raw, 'insecureStorage'),
    clientMetadataUrl: stringFlag(raw, 'clientMetadataUrl'),
    wait: typeof raw.wait === 'boolean' ? raw.wait : undefined,
    device: booleanFlag(raw, 'device'),
    dpop: raw.dpop !== false,
  }),
  run,
});
