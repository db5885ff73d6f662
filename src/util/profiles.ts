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

/** The login command for a profile and server: `school login --base-url … --profile …`. */
export function loginCommandFor(profile: string, baseUrl?: string): string {
  const parts = ['school login'];
  if (baseUrl) parts.push(`--base-url ${baseUrl}`);
  if (profile !== DEFAULT_PROFILE) parts.push(`--profile ${profile}`);
  return parts.join(' ');
}

/**
 * The login command that fixes a missing or broken session. Every hint has one shape: a command
 * alone on its line (after a sentence, where one is needed), as the MCP results give it.
 */
export function loginHint(profile: string, baseUrl?: string): string {
  return loginCommandFor(profile, baseUrl);
}
