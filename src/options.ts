import { UsageError } from './errors.js';
import { assertSafeUrl, isLoopbackHost } from './http/transport.js';

/** The environment as the process sees it (or as a test hands it in). */
export type Env = Record<string, string | undefined>;

/** Options every command accepts, before or after its name. */
export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
}

export const DEFAULT_PROFILE = 'default';

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`Invalid profile name "${name}": use letters, digits, ".", "_" or "-".`);
  }
  return name;
}

/**
 * A base URL typed without its scheme (`localhost:8080`) is refused with the URLs it may have
 * meant, rather than guessed: guessing https for a local http server ends in a TLS error.
 */
function schemeMissing(input: string): UsageError {
  let host: URL | undefined;
  try {
    host = new URL(`http://${input}`);
  } catch {
    host = undefined;
  }
  if (!host) return new UsageError(`The base URL "${input}" is not a URL: write it with its scheme, e.g. https://your-school.example.`, { code: 'invalid_base_url' });
  const rest = `${host.host}${host.pathname === '/' ? '' : host.pathname.replace(/\/+$/, '')}`;
  const candidates = isLoopbackHost(host.hostname) ? [`http://${rest}`, `https://${rest}`] : [`https://${rest}`];
  return new UsageError(`The base URL "${input}" has no scheme: did you mean ${candidates.join(' or ')}?`, {
    code: 'invalid_base_url',
    hint: isLoopbackHost(host.hostname) ? 'Plain http:// is allowed only for a server on this machine.' : undefined,
  });
}

/** The service origin (and path, if any) without a trailing slash; https, or http to loopback only. */
export function normalizeBaseUrl(input: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(input)) throw schemeMissing(input);
  const url = assertSafeUrl(input, 'base URL');
  if (url.search || url.hash) throw new UsageError(`The base URL must not have a query or fragment: ${input}`, { code: 'invalid_base_url' });
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function profileName(opts: GlobalOptions, env: Env): string {
  return checkProfileName(opts.profile || env.SCHOOL_PROFILE || DEFAULT_PROFILE);
}

/** --base-url, then SCHOOL_BASE_URL, then what the profile remembers. */
export function baseUrlFor(opts: GlobalOptions, env: Env, remembered?: { baseUrl: string }): string | undefined {
  const raw = opts.baseUrl || env.SCHOOL_BASE_URL || remembered?.baseUrl;
  return raw ? normalizeBaseUrl(raw) : undefined;
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

/** The login command that fixes a missing or broken session, as a sentence. */
export function loginHint(profile: string, baseUrl?: string): string {
  return `Run \`${loginCommandFor(profile, baseUrl)}\`.`;
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
