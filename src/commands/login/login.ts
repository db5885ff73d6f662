import type { Deps } from '../../deps.js';
import { isCodeWithExit } from '../../error-codes.js';
import { AuthError, CliError, ExitCode, UsageError } from '../../errors.js';
import { cancelPendingLogin, waitForPendingLogin } from '../../login/background.js';
import { startPendingLogin } from '../../login/two-step.js';
import { finishBrowserLogin, loggedInMessage } from '../../login/orchestrator.js';
import { CALLBACK_PATH, type LoginRequest, type ScopeFlag, prepareLogin } from '../../login/transaction.js';
import { type LoopbackListener, carriesState, listenForRedirect } from '../../login/loopback.js';
import { checkNewProfileName } from '../../platform/profile-names.js';
import { waitForRedirect } from '../../login/redirect-wait.js';
import { unattendedLoginError } from '../../login/unattended.js';
import { type GlobalOptions, loginCommandFor, profileSuffix } from '../../options.js';
import { EXAMPLE_BASE_URL, loginCommandText, runCommandHint } from '../../util/login-command.js';
import type { Target } from '../../session/target.js';
import type { PendingLogin } from '../../state/pending-login.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { redactText, registerSecret } from '../../util/redact.js';
import { commandTarget, defineCommand } from '../command.js';
import { deviceLogin, startBackgroundDeviceLogin } from './device-login.js';

export interface LoginOptions extends GlobalOptions {
  /** Replaces the default set (the table splits the list and drops duplicates). */
  scope?: string[];
  /** Added to the scopes the profile holds now. */
  addScope?: string[];
  /** false with --no-browser: the printed-URL login (the person opens the URL, here or on another machine). */
  browser: boolean;
  port?: number;
  /** --timeout in seconds; unset, the login waits DEFAULT_LOGIN_TIMEOUT_SECONDS (--wait: as long as the pending login lasts). */
  timeout?: number;
  confidential: boolean;
  insecureStorage: boolean;
  clientMetadataUrl?: string;
  /** true with --wait (finish a pending login), false with --no-wait (start one and return). */
  wait?: boolean;
  /** The device authorization grant (RFC 8628): approve on any device with a code. */
  device?: boolean;
  /** false with --no-dpop: bearer tokens even where the server offers DPoP. */
  dpop: boolean;
  /** A client registered out of band: no registration request is made. */
  clientId?: string;
  /** Read the pre-registered client's secret from stdin (never from a flag's value). */
  clientSecretStdin?: boolean;
}

export const DEFAULT_LOGIN_TIMEOUT_SECONDS = 300;

/** What `login --json` prints: what was done, never a secret. */
function loggedInJson(p: { profile: string; baseUrl: string; user?: string; scopes?: string[]; storage?: string }): string {
  return `${terminalSafeJson({ status: 'logged_in', profile: p.profile, base_url: p.baseUrl, user: p.user ?? null, scopes: p.scopes ?? [], storage: p.storage ?? null })}\n`;
}

function waitHint(profile: string): string {
  return loginCommandText({ profile, options: ['--wait'] });
}

/** The secret of a pre-registered client: its first line on stdin with --client-secret-stdin, else SCHOOL_CLIENT_SECRET. */
async function preRegisteredSecret(deps: Deps, opts: LoginOptions): Promise<string | undefined> {
  if (opts.clientSecretStdin && !opts.clientId) throw new UsageError('--client-secret-stdin is the secret of the client --client-id names: give --client-id too.');
  if (!opts.clientId) return undefined;
  if (!opts.clientSecretStdin) return deps.env.SCHOOL_CLIENT_SECRET || undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of deps.io.in) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  const secret = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0]?.trim() ?? '';
  if (!secret)
    throw new UsageError('--client-secret-stdin: nothing was read from stdin.', {
      hint: `Pipe the secret in, e.g. \`printf %s "$SECRET" | ${loginCommandText({ profile: opts.profile, options: [['--client-id', opts.clientId], '--client-secret-stdin'] })}\`.`,
    });
  registerSecret(secret);
  return secret;
}

/** The request both the waiting and the two-step login prepare. */
function loginRequest(deps: Deps, opts: LoginOptions, target: Target, timeoutSeconds: number, clientSecret?: string): LoginRequest {
  const { profile, baseUrl } = target;
  if (!baseUrl) {
    throw new UsageError('No base URL: pass --base-url (or set SCHOOL_BASE_URL).', {
      ...runCommandHint(loginCommandText({ baseUrl: target.suggestedBaseUrl ?? EXAMPLE_BASE_URL, profile })),
    });
  }
  if (opts.scope && opts.addScope) {
    throw new UsageError('Give --scope or --add-scope, not both: --scope asks for exactly those scopes, --add-scope for the ones held now plus these.');
  }
  return {
    profile,
    baseUrl,
    scopes: opts.scope,
    addScopes: opts.addScope,
    timeoutSeconds,
    confidential: opts.confidential,
    insecureStorage: opts.insecureStorage,
    clientMetadataUrl: opts.clientMetadataUrl || undefined,
    envClientMetadataUrl: deps.env.SCHOOL_CLIENT_METADATA_URL || undefined,
    ...(opts.clientId ? { clientId: opts.clientId, clientSecret } : {}),
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
  const { port } = opts;
  const timeoutSeconds = opts.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS;
  const request = loginRequest(deps, opts, target, timeoutSeconds, await preRegisteredSecret(deps, opts));
  const notify = (text: string) => deps.io.err.write(text);
  const { pending, replacedEarlier } = await startPendingLogin(deps, request, { port, notify });
  if (replacedEarlier) notify(`The earlier pending login${profileSuffix(profile)} was replaced.\n`);
  const time = (epoch: number) => new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');
  const when =
    pending.openBy === undefined
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
  const others = [
    opts.scope && '--scope',
    opts.addScope && '--add-scope',
    opts.port && '--port',
    opts.confidential && '--confidential',
    opts.insecureStorage && '--insecure-storage',
    opts.clientMetadataUrl && '--client-metadata-url',
    opts.clientId && '--client-id',
    opts.clientSecretStdin && '--client-secret-stdin',
    !opts.dpop && '--no-dpop',
  ].filter(Boolean);
  if (others.length) throw new UsageError(`--wait finishes the login \`${loginCommandText({ profile, options: ['--no-wait'] })}\` started: give ${others.join(', ')} to that one.`);
  const result = await waitForPendingLogin(deps, profile, { maxWaitSeconds: opts.timeout });
  if (result.kind === 'none') {
    throw new AuthError(`No login is pending${profileSuffix(profile)}.`, {
      code: 'no_pending_login',
      hint: `Start one, then open the URL it prints:\n${loginCommandText({ profile, options: ['--no-wait'] })}`,
    });
  }
  if (result.kind === 'still_pending') {
    const until = new Date(result.expiresAt * 1000).toISOString().replace('.000Z', 'Z');
    throw new AuthError(`The login${profileSuffix(profile)} is still waiting for the browser (until ${until}).`, {
      code: 'login_pending',
      hint: `Once the URL was opened, wait again:\n${waitHint(profile)}`,
    });
  }
  const { outcome } = result;
  if (outcome.status !== 'completed') {
    throw new AuthError(outcome.status === 'timed_out' ? `${outcome.message.replace(/\.$/, '')}; the pending login${profileSuffix(profile)} was abandoned.` : outcome.message, {
      // A failure that is not itself a call to log in (access_denied, a network error…) is login_failed,
      // so that --wait exits 4 for every login that did not complete; the message names the cause.
      code: isCodeWithExit(outcome.error, ExitCode.auth) ? outcome.error : 'login_failed',
      hint: outcome.hint ?? `Start a new one:\n${loginCommandText({ profile, options: ['--no-wait'] })}`,
    });
  }
  const saved = await deps.state.profile(profile);
  // The outcome file was written by the background listener from server answers: shown as plain, redacted text.
  for (const warning of outcome.warnings ?? []) deps.io.err.write(`Warning: ${printable(redactText(warning))}\n`);
  const baseUrl = outcome.baseUrl ?? saved?.baseUrl;
  deps.io.err.write(baseUrl ? `${loggedInMessage(outcome.user, `${baseUrl}${profileSuffix(profile)}`)}\n` : `${printable(redactText(outcome.message)).replace(/\.$/, '')}${profileSuffix(profile)}.\n`);
  if (opts.json) deps.io.out.write(loggedInJson({ profile, baseUrl: outcome.baseUrl ?? saved?.baseUrl ?? '', user: outcome.user, scopes: outcome.scopes, storage: saved?.storage }));
}

/** This login again, as a whole command line, with the flags the user gave and other scopes (for `--scope` or `--add-scope`). */
export function loginCommandLine(opts: LoginOptions, scopes: string[], flag: ScopeFlag = '--scope'): string {
  const options: Array<string | [string, string]> = [];
  for (const [name, value] of [
    ['--port', opts.port],
    ['--timeout', opts.timeout],
    ['--client-metadata-url', opts.clientMetadataUrl],
    ['--client-id', opts.clientId],
  ] as const) {
    if (value !== undefined) options.push([name, String(value)]);
  }
  if (!opts.browser) options.push('--no-browser');
  // --wait never gets this far (it prepares nothing); a retried --no-wait login is again a two-step one.
  if (opts.wait === false) options.push('--no-wait');
  if (opts.confidential) options.push('--confidential');
  if (opts.insecureStorage) options.push('--insecure-storage');
  if (opts.device) options.push('--device');
  if (!opts.dpop) options.push('--no-dpop');
  if (opts.clientSecretStdin) options.push('--client-secret-stdin');
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
    return startBackgroundDeviceLogin(
      deps,
      loginRequest(deps, opts, target, opts.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS, await preRegisteredSecret(deps, opts)),
      waitHint(profile),
      Boolean(opts.json),
    );
  }
  if (opts.wait === false) return startTwoStepLogin(deps, opts, target);
  // Before anything else, registration included: nobody will open a browser here.
  const unattended = unattendedLoginError(deps.env, target.baseUrl);
  if (unattended) throw unattended;
  if (opts.device) {
    await cancelPendingLogin(deps, profile).catch(() => false);
    return deviceLogin(deps, loginRequest(deps, opts, target, opts.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS, await preRegisteredSecret(deps, opts)), loggedInJson, Boolean(opts.json));
  }
  const { port } = opts;
  const timeoutSeconds = opts.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS;
  const request = loginRequest(deps, opts, target, timeoutSeconds, await preRegisteredSecret(deps, opts));
  // This login replaces one left pending by `--no-wait`.
  await cancelPendingLogin(deps, profile).catch(() => false);

  try {
    await browserLogin(deps, opts, request, port, timeoutSeconds);
  } catch (err) {
    // The server refused the saved registration only when the browser came back (on the redirect or
    // at the token endpoint): it is forgotten, and one more round registers anew.
    if (!(err instanceof CliError && err.code === 'invalid_client') || request.clientId) throw err;
    deps.io.err.write(`${err.message.replace(/, and the next login registers again\.$/, '.')} Registering again; sign in once more.\n`);
    await browserLogin(deps, opts, request, port, timeoutSeconds);
  }
}

/** One round of the waiting login: prepare, send the browser, receive the redirect, complete, say so. */
async function browserLogin(deps: Deps, opts: LoginOptions, request: LoginRequest, port: number | undefined, timeoutSeconds: number): Promise<void> {
  const { profile } = request;
  const notify = (text: string) => deps.io.err.write(text);
  let listener: LoopbackListener | undefined;
  let pending: PendingLogin | undefined;
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
          // Only this login's own callback ends the wait: a forged one is ignored.
          isOwnCallback: (url) => carriesState(url, pending?.state),
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

export const loginCommand = defineCommand<LoginOptions>({ name: 'login', run });
