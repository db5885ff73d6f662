import type { Deps } from '../../deps.js';
import { type BackgroundListener, startBackgroundListener } from '../../login/background.js';
import { type DeviceLogin, finishDeviceLogin, pendingDeviceLogin, startDeviceLogin } from '../../login/device.js';
import { endLogin, loggedInMessage } from '../../login/orchestrator.js';
import type { LoginRequest } from '../../login/transaction.js';
import { profileSuffix } from '../../options.js';
import { printable, terminalSafeJson } from '../../util/printable.js';

function untilText(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The codes on stderr, each on a line of its own so that a person or an agent can pass them on
 * as they are, with the warning that protects against a code someone else sent.
 */
function showDeviceCodes(deps: Deps, started: DeviceLogin): void {
  const { authorization: a } = started;
  const lines = ['To sign in, open this address on any device:', printable(a.verificationUri), 'and enter the code:', printable(a.userCode)];
  if (a.verificationUriComplete) lines.push('Or open this address, which carries the code:', printable(a.verificationUriComplete));
  lines.push('Enter a code only if you started this sign-in yourself: never enter a code that someone else sent you.', `The code is valid until ${untilText(started.deadline)}.`);
  deps.io.err.write(`${lines.join('\n')}\n`);
}

/** What `login --device --json` prints before it waits (--no-wait): where to go, never a secret. */
function deviceCodesJson(profile: string, started: DeviceLogin): string {
  const { authorization: a } = started;
  return `${terminalSafeJson({
    url: a.verificationUriComplete ?? a.verificationUri,
    verification_uri: a.verificationUri,
    verification_uri_complete: a.verificationUriComplete ?? null,
    user_code: a.userCode,
    profile,
    expires_at: started.deadline,
  })}\n`;
}

/** `login --device`: show the codes, poll until the person approved on another device, store the login. */
export async function deviceLogin(
  deps: Deps,
  request: LoginRequest,
  loggedInJson: (r: { profile: string; baseUrl: string; user?: string; scopes?: string[]; storage?: string }) => string,
  json: boolean,
): Promise<void> {
  const started = await startDeviceLogin(deps, request, (text) => deps.io.err.write(text));
  showDeviceCodes(deps, started);
  const result = await endLogin(deps, { complete: (wanted) => finishDeviceLogin(deps, request.profile, started, wanted), ownRecord: async () => undefined });
  for (const warning of result.warnings) deps.io.err.write(`Warning: ${printable(warning)}\n`);
  deps.io.err.write(`${loggedInMessage(result.user, `${result.profile.baseUrl}${profileSuffix(request.profile)}`)}\n`);
  if (json) deps.io.out.write(loggedInJson({ profile: request.profile, baseUrl: result.profile.baseUrl, user: result.user, scopes: started.login.scopes, storage: result.profile.storage }));
}

/**
 * `login --device --no-wait`: asks for the codes, leaves a detached poller to finish the login,
 * shows the codes and returns at once; `login --wait` then learns how it went.
 */
export async function startBackgroundDeviceLogin(deps: Deps, request: LoginRequest, waitHint: string, json: boolean): Promise<void> {
  const started = await startDeviceLogin(deps, request, (text) => deps.io.err.write(text));
  const pending = pendingDeviceLogin(request.profile, started);
  // Saved before the poller starts, which reads it; it names the poller once that runs.
  await deps.state.savePendingLogin(pending);
  let poller: BackgroundListener | undefined;
  try {
    poller = await startBackgroundListener({ profile: request.profile, timeoutSeconds: request.timeoutSeconds, device: true });
    await deps.state.savePendingLogin({ ...pending, listenerPid: poller.pid });
  } catch (err) {
    await poller?.stop();
    await deps.state.removePendingLogin(request.profile, pending.storage).catch(() => undefined);
    throw err;
  }
  showDeviceCodes(deps, started);
  deps.io.err.write(`Then run \`${waitHint}\` to learn how it went.\n`);
  if (json) deps.io.out.write(deviceCodesJson(request.profile, started));
}
