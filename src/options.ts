import { UsageError } from './errors.js';
import type { TargetInputs } from './session/target.js';
import type { Env } from './types/env.js';

// Names the command line shares with the layers below, where they are defined.
export type { Env } from './types/env.js';
export { DEFAULT_PROFILE, checkProfileName, profileSuffix } from './util/profiles.js';
export { loginCommandFor, loginHint } from './util/login-command.js';
export { normalizeBaseUrl } from './session/target.js';

/** Options every command accepts, before or after its name. */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
}

/** The command line's flags as the inputs of the one target resolution (src/session/target.ts). */
export function targetInputs(opts: GlobalOptions, env: Env, extra: { anonymous?: boolean } = {}): TargetInputs {
  return { profile: opts.profile, baseUrl: opts.baseUrl, env, ...extra };
}

/** The longest wait any flag may ask for: a day. */
const MAX_WAIT_SECONDS = 86_400;

/** `--timeout <seconds>` and its kind: a number of seconds, fractions allowed, above 0 and at most a day. */
export function parseSeconds(flag: string, raw: string): number {
  const text = raw.trim();
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(seconds > 0) || seconds > MAX_WAIT_SECONDS) {
    throw new UsageError(`Invalid ${flag} "${raw}": use a number of seconds above 0 and at most ${MAX_WAIT_SECONDS}.`);
  }
  return seconds;
}
