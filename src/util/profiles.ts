import { UsageError } from '../errors.js';

export const DEFAULT_PROFILE = 'default';

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`Invalid profile name "${name}": use letters, digits, ".", "_" or "-".`);
  }
  return name;
}

/** " (profile night)", or nothing for the default profile: the suffix every message about a profile uses. */
export function profileSuffix(profile: string): string {
  return profile === DEFAULT_PROFILE ? '' : ` (profile ${profile})`;
}
