import type { Deps } from '../../deps.js';
import { runBackgroundListener } from '../../login/background-listener.js';
import type { GlobalOptions } from '../../options.js';
import { commandTarget, defineCommand } from '../command.js';
import { runBackgroundDevicePoller } from '../../login/background-device.js';
import { DEFAULT_LOGIN_TIMEOUT_SECONDS } from './login.js';

export interface CompleteLoginOptions extends GlobalOptions {
  port?: number;
  cachedRedirectUri?: string;
  timeout?: number;
  device: boolean;
}

/** The detached listener `login --no-wait` leaves behind; not for people to run. */
async function run(deps: Deps, opts: CompleteLoginOptions): Promise<void> {
  const { profile } = await commandTarget(deps, opts);
  if (opts.device) return runBackgroundDevicePoller(deps, { profile });
  await runBackgroundListener(deps, {
    profile,
    port: opts.port,
    cachedRedirectUri: opts.cachedRedirectUri,
    timeoutSeconds: opts.timeout ?? DEFAULT_LOGIN_TIMEOUT_SECONDS,
  });
}

export const completeLoginCommand = defineCommand<CompleteLoginOptions>({ name: '__complete-login', run });
