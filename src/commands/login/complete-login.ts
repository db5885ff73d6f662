import type { Command } from 'commander';
import type { Deps } from '../../deps.js';
import { BACKGROUND_COMMAND } from '../../login/background.js';
import { runBackgroundListener } from '../../login/background-listener.js';
import { parseLoginPort } from '../../login/ports.js';
import type { GlobalOptions } from '../../options.js';
import { booleanFlag, commandTarget, defineCommand, globalOptions, stringFlag } from '../command.js';
import { runBackgroundDevicePoller } from '../../login/background-device.js';
import { parseTimeout } from './login.js';

export interface CompleteLoginOptions extends GlobalOptions {
  port?: string;
  cachedRedirectUri?: string;
  timeout?: string;
  device: boolean;
}

/** The detached listener `login --no-wait` leaves behind; not for people to run. */
async function run(deps: Deps, opts: CompleteLoginOptions): Promise<void> {
  const { profile } = await commandTarget(deps, opts);
  if (opts.device) return runBackgroundDevicePoller(deps, { profile });
  await runBackgroundListener(deps, {
    profile,
    port: parseLoginPort(opts.port),
    cachedRedirectUri: opts.cachedRedirectUri,
    timeoutSeconds: parseTimeout(opts.timeout),
  });
}

export const completeLoginCommand = defineCommand<CompleteLoginOptions>({
  name: BACKGROUND_COMMAND,
  description: 'the background listener of `login --no-wait`',
  hidden: true,
  configure(cmd: Command) {
    cmd.option('--port <n>').option('--cached-redirect-uri <uri>').option('--timeout <seconds>').option('--device');
  },
  toOptions: (raw) => ({ ...globalOptions(raw), port: stringFlag(raw, 'port'), cachedRedirectUri: stringFlag(raw, 'cachedRedirectUri'), timeout: stringFlag(raw, 'timeout'), device: booleanFlag(raw, 'device') }),
  run,
});
