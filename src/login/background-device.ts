import { type Deps, nowSeconds } from '../deps.js';
import type { PendingLoginRecord } from '../state/pending-login.js';
import { completedOutcome, outcomeOf, reportToParent } from './background-listener.js';
import { systemProcesses } from './background.js';
import { deviceLoginOf, finishDeviceLogin } from './device.js';
import { endLogin, stillThisLogin } from './orchestrator.js';

// The inside of `login --device --no-wait`: the detached process that polls the token endpoint
// for a device login (RFC 8628) until it is approved, refused or expired, and leaves the outcome
// for `login --wait`, as the loopback listener of a browser login does.

/**
 * The background poller itself (`__complete-login --device`): reads the pending device login its
 * parent saved, reports, then polls. It stops, storing nothing, once that pending login is no
 * longer the profile's (cancelled by `school logout`, or replaced by a newer login).
 */
export async function runBackgroundDevicePoller(deps: Deps, p: { profile: string }): Promise<void> {
  const pending = await deps.state.pendingLogin(p.profile);
  if (!pending?.deviceInterval) {
    await reportToParent({ error: 'internal_error', message: 'No device login is pending for the background poller.' });
    return;
  }
  await reportToParent({ port: 0, redirectUri: pending.redirectUri });
  // The parent names this process in the record once it reported: that record is the login this poller serves.
  const started = await waitForOwnRecord(deps, p.profile);
  if (!started) return;
  const stillWanted = stillThisLogin(deps, started);
  const ownRecord = async () => ((await stillWanted()) ? started : undefined);
  await endLogin(deps, {
    complete: async (wanted) => finishDeviceLogin(deps, p.profile, await deviceLoginOf(deps, pending), wanted),
    stillWanted,
    // The outcome before anything else: the pending login is removed only after it.
    async completed(result) {
      await deps.state.saveLoginOutcome(completedOutcome(p.profile, result, pending.scopes, nowSeconds(deps)));
    },
    async failed(err) {
      if (await stillWanted()) await deps.state.saveLoginOutcome(outcomeOf(p.profile, err, nowSeconds(deps), started.baseUrl));
    },
    ownRecord,
  });
}

/** The pending-login record once it names this process (the parent writes it right after the report); undefined when it never does. */
async function waitForOwnRecord(deps: Deps, profile: string): Promise<PendingLoginRecord | undefined> {
  for (let i = 0; i < 100; i++) {
    const record = await deps.state.pendingLoginRecord(profile).catch(() => undefined);
    if (!record) return undefined;
    if (record.listenerPid === process.pid) return record;
    await systemProcesses.sleep(100, deps.signal);
  }
  return undefined;
}
