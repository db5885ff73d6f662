import type { HttpClient } from './http/client.js';
import type { IOStreams } from './iostreams.js';
import type { BrowserOpener } from './types/browser.js';
import type { Env } from './types/env.js';
import type { StateRepository } from './state/repository.js';

interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** Everything a command touches from the outside world, so tests can hand in fakes. */
export interface Deps {
  io: IOStreams;
  env: Env;
  clock: Clock;
  /** The operating system the rules for paths, signals, files and the browser follow (process.platform). */
  platform: NodeJS.Platform;
  http: HttpClient;
  browser: BrowserOpener;
  /** Everything saved between runs: profiles, secrets, job state, caches, pending logins. */
  state: StateRepository;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  verbose: boolean;
}

export function nowSeconds(deps: Pick<Deps, 'clock'>): number {
  return Math.floor(deps.clock.now() / 1000);
}
