import { type Deps, nowSeconds } from '../deps.js';
import type { PendingLoginRecord } from '../state/pending-login.js';
import { completedOutcome, outcomeOf, reportToParent } from './background-listener.js';
import { deviceLoginOf, finishDeviceLogin } from './device.js';
import { cacheApiDescription } from './orchestrator.js';

// The inside of `login --device --no-wait`: the detached process that polls the token endpoint
// for a device login (RFC 8628) until it is approved, refused or expired, and leaves the outcome
// for `login --wait`, as the loopback listener of a browser login does.

/**
 * The background poller itself (`__complete-login --device`): reads the pending device login its
 * parent saved, reports, then polls. A login superseded meanwhile (its record names another
 * process) is left alone.
 */
export async function runBackgroundDevicePoller(deps: Deps, p: { profile: string }): Promise<void> {
  const pending = await deps.state.pendingLogin(p.profile);
  if (!pending?.deviceInterval) {
    await reportToParent({ error: 'internal_error', message: 'No device login is pending for the background poller.' });
    return;
  }
  await reportToParent({ port: 0, redirectUri: pending.redirectUri });
  const ours = (record: PendingLoginRecord | undefined) => record?.listenerPid === process.pid;
  let ok = false;
  try {
    const result = await finishDeviceLogin(deps, p.profile, await deviceLoginOf(deps, pending));
    ok = true;
    if (!ours(await deps.state.pendingLoginRecord(p.profile))) return;
    await deps.state.saveLoginOutcome(completedOutcome(p.profile, result, pending.scopes, nowSeconds(deps)));
    await cacheApiDescription(deps, result.profile.baseUrl);
  } catch (err) {
    const record = await deps.state.pendingLoginRecord(p.profile).catch(() => undefined);
    if (!ok && ours(record)) await deps.state.saveLoginOutcome(outcomeOf(p.profile, err, nowSeconds(deps), record?.baseUrl)).catch(() => undefined);
    throw err;
  } finally {
    const record = await deps.state.pendingLoginRecord(p.profile).catch(() => undefined);
    if (record && ours(record)) await deps.state.removePendingLogin(p.profile, record.storage).catch(() => undefined);
  }
}
