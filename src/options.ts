import type { TargetInputs } from './session/target.js';
import type { Env } from './types/env.js';

// Names the command line shares with the layers below, where they are defined.
export type { Env } from './types/env.js';
export { DEFAULT_PROFILE, checkProfileName, profileSuffix } from './util/profiles.js';
export { loginCommandFor } from './util/login-command.js';
export { normalizeBaseUrl } from './session/target.js';

/** Options every command accepts, before or after its name. */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  /** Where the API description lies (`--description <url|file>`). */
  description?: string;
  json?: boolean;
  verbose?: boolean;
}

/** The command line's flags as the inputs of the one target resolution (src/session/target.ts). */
export function targetInputs(opts: GlobalOptions, env: Env, extra: { anonymous?: boolean; profileMustExist?: boolean } = {}): TargetInputs {
  return { profile: opts.profile, baseUrl: opts.baseUrl, ...(opts.description !== undefined ? { description: opts.description } : {}), env, ...extra };
}
