import { normalizeBaseUrl } from '../config/base-url.js';
import { DEFAULT_PROFILE, type Profile, checkProfileName } from '../config/config.js';
import type { Env } from '../deps.js';

/** Options every command accepts, before or after its name. */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
}

export function profileName(opts: GlobalOptions, env: Env): string {
  return checkProfileName(opts.profile || env.SCHOOL_PROFILE || DEFAULT_PROFILE);
}

/** --base-url, then SCHOOL_BASE_URL, then what the profile remembers. */
export function baseUrlFor(opts: GlobalOptions, env: Env, profile?: Profile): string | undefined {
  const raw = opts.baseUrl || env.SCHOOL_BASE_URL || profile?.baseUrl;
  return raw ? normalizeBaseUrl(raw) : undefined;
}
