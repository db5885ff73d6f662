import type { Deps } from './deps.js';
import { createHttpClient } from './http/client.js';
import { type IOStreams, systemIO } from './iostreams.js';
import { systemBrowser } from './login/browser.js';
import type { Env } from './types/env.js';
import { systemBackends } from './state/backends.js';
import { resolvePaths } from './state/paths.js';
import { openStateRepository } from './state/repository.js';
import { VERSION } from './version.js';

/** The real world: process streams, environment, wall clock, network, browser, keychain. */
export function systemDeps(options: { verbose: boolean; signal: AbortSignal; env?: Env; io?: IOStreams; platform?: NodeJS.Platform }): Deps {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const io = options.io ?? systemIO(env);
  const paths = resolvePaths(env, undefined, platform);
  const credentials = systemBackends(paths, platform);
  const state = openStateRepository({ paths, credentials });
  return {
    io,
    env,
    clock: { now: () => Date.now() },
    platform,
    http: createHttpClient({ env, trace: options.verbose ? io.err : undefined, userAgent: `school-cli/${VERSION}` }),
    browser: systemBrowser(env, platform),
    state,
    signal: options.signal,
    verbose: options.verbose,
  };
}
