import { systemBrowser } from './browser.js';
import { resolvePaths } from './config/paths.js';
import { openFileStore } from './credentials/file.js';
import { openKeychain, probeKeychain } from './credentials/keychain.js';
import type { Deps, Env } from './deps.js';
import { createHttpClient } from './http/client.js';
import { systemIO } from './iostreams.js';

/** The real world: process streams, environment, wall clock, network, browser, keychain. */
export function systemDeps(options: { verbose: boolean; signal: AbortSignal; env?: Env }): Deps {
  const env = options.env ?? process.env;
  const io = systemIO(env);
  const paths = resolvePaths(env);
  return {
    io,
    env,
    clock: { now: () => Date.now() },
    http: createHttpClient({ env, trace: options.verbose ? io.err : undefined, userAgent: 'school-cli/0.1' }),
    browser: systemBrowser(env),
    credentials: {
      keychain: () => openKeychain(),
      probeKeychain: () => probeKeychain(),
      file: () => openFileStore(paths.credentialsFile, paths.lockDir),
    },
    paths,
    signal: options.signal,
    verbose: options.verbose,
  };
}
