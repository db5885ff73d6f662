import { AuthError, UsageError } from '../errors.js';
import { assertSafeUrl, isLoopbackHost } from '../http/transport.js';
import type { Env } from '../types/env.js';
import type { Profile } from '../types/profile.js';
import { editDistance } from '../util/edit-distance.js';
import { EXAMPLE_BASE_URL, loginFix } from '../util/login-command.js';
import { DEFAULT_PROFILE, checkProfileName } from '../util/profiles.js';
import { type DescriptionSource, descriptionSource } from './description-source.js';

/**
 * What a front-end asks for, in its own terms turned explicit: the CLI's flags, a tool call's
 * server options, a library caller's arguments. Every other input comes from the environment.
 */
export interface TargetInputs {
  /** The profile asked for (`--profile`, `openSession({ profile })`); else SCHOOL_PROFILE, else `default`. */
  profile?: string;
  /** The base URL asked for (`--base-url`); else SCHOOL_BASE_URL. */
  baseUrl?: string;
  /** Where the API description lies (`--description`); else SCHOOL_API_DESCRIPTION, else what the profile remembers. */
  description?: string;
  /** Send no token, whatever credentials there are. */
  anonymous?: boolean;
  /**
   * A profile named (by option or SCHOOL_PROFILE) that was never stored is refused rather than
   * served anonymously or as "not logged in": a typo in its name must not look like success.
   */
  profileMustExist?: boolean;
  env: Env;
}

/**
 * Where a command's credentials come from, in the order they are looked for:
 * - `env_token`: SCHOOL_TOKEN, used as it is;
 * - `headless`: SCHOOL_REFRESH_TOKEN with SCHOOL_CLIENT_ID, a CI job's seed;
 * - `profile`: the profile's stored login;
 * - `none`: anonymous, by request or for want of any credentials.
 */
type CredentialSource = 'env_token' | 'headless' | 'profile' | 'none';

export interface Target {
  profile: string;
  /** The base URL to use: the one asked for, else the profile's, else the one it last had; undefined when none is known. */
  baseUrl?: string;
  /** The base URL the caller or the environment named, when one did; never quietly replaced by another. */
  explicitBaseUrl?: string;
  source: CredentialSource;
  /** The stored profile, when there is one. */
  stored?: Profile;
  /**
   * Where no base URL is known: the server a login to this profile most likely wants (likelyBaseUrl),
   * named in hints instead of an example; never a server anything is sent to.
   */
  suggestedBaseUrl?: string;
  /**
   * Where the API description lies when not at `<baseUrl>/openapi.json`; `remember` when it was
   * named on the command line, for the profile to keep for this base URL.
   */
  description?: DescriptionSource & { remember?: boolean };
}

/** What the target resolution reads of the stores: the profile, and the base URL a profile had before logout. */
export interface TargetState {
  profiles(): Promise<Record<string, Profile>>;
  profile(name: string): Promise<Profile | undefined>;
  rememberedBaseUrl(name: string): Promise<string | undefined>;
  /** The description source a profile was last given (`--description`) for a base URL. */
  rememberedDescription?(name: string): Promise<{ baseUrl: string; location: string } | undefined>;
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
  if (!host) return new UsageError(`The base URL "${input}" is not a URL: write it with its scheme, e.g. ${EXAMPLE_BASE_URL}.`, { code: 'invalid_base_url' });
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

/** The profile asked for, else SCHOOL_PROFILE, else `default`; checked. */
export function targetProfile(inputs: Pick<TargetInputs, 'profile' | 'env'>): string {
  return checkProfileName(inputs.profile || inputs.env.SCHOOL_PROFILE || DEFAULT_PROFILE);
}

/** The base URL asked for, else SCHOOL_BASE_URL; normalized. Undefined when neither names one. */
export function explicitBaseUrl(inputs: Pick<TargetInputs, 'baseUrl' | 'env'>): string | undefined {
  const raw = inputs.baseUrl || inputs.env.SCHOOL_BASE_URL;
  return raw ? normalizeBaseUrl(raw) : undefined;
}

function sourceOf(inputs: TargetInputs, stored: Profile | undefined): CredentialSource {
  if (inputs.anonymous) return 'none';
  // SCHOOL_TOKEN before the headless seed: a job that has a token to hand needs no refresh.
  if (inputs.env.SCHOOL_TOKEN) return 'env_token';
  if (inputs.env.SCHOOL_REFRESH_TOKEN) return 'headless';
  return stored ? 'profile' : 'none';
}

/** The stored profile names closest to a mistyped one, best first. */
export function closestProfiles(wrong: string, names: string[]): string[] {
  const scored = names.map((name) => ({ name, d: editDistance(wrong.toLowerCase(), name.toLowerCase()) }));
  const near = scored.filter(({ name, d }) => d <= Math.max(2, Math.floor(Math.max(wrong.length, name.length) / 3)));
  return near.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name)).map(({ name }) => name);
}

/**
 * The server a login to a new (or mistyped) profile most likely wants, where none was named: the
 * closest profile's, else the default profile's, else the one server every profile shares.
 */
export function likelyBaseUrl(near: readonly string[], stored: Readonly<Record<string, Pick<Profile, 'baseUrl'>>>): string | undefined {
  const servers = [...new Set(Object.values(stored).map((p) => p.baseUrl))];
  return stored[near[0]]?.baseUrl ?? stored[DEFAULT_PROFILE]?.baseUrl ?? (servers.length === 1 ? servers[0] : undefined);
}

/** The likely server of a profile with none, from the stored ones (none when they cannot be read). */
async function suggestBaseUrl(state: TargetState, profile: string): Promise<string | undefined> {
  const stored = await state.profiles().catch(() => ({}));
  return likelyBaseUrl(closestProfiles(profile, Object.keys(stored)), stored);
}

async function unknownProfile(state: TargetState, profile: string, baseUrl: string | undefined): Promise<AuthError> {
  const stored = await state.profiles();
  const names = Object.keys(stored).sort();
  const near = closestProfiles(profile, names);
  const known =
    names.length === 0
      ? ': there are no profiles yet.'
      : near.length > 0
        ? `. Did you mean ${near
            .slice(0, 3)
            .map((n) => `"${n}"`)
            .join(' or ')}?`
        : `. The profiles are ${names.map((n) => `"${n}"`).join(', ')}.`;
  return new AuthError(`There is no profile "${profile}"${known} A login with --profile ${profile} creates it; call --anonymous needs none.`, {
    code: 'not_logged_in',
    ...loginFix(profile, baseUrl ?? likelyBaseUrl(near, stored) ?? EXAMPLE_BASE_URL),
  });
}

/**
 * The one place that decides which profile, base URL and credential source a request uses, for
 * every front-end: options first, then the SCHOOL_* variables, then the stored profile.
 */
export async function resolveTarget(state: TargetState, inputs: TargetInputs): Promise<Target> {
  const profile = targetProfile(inputs);
  const explicit = explicitBaseUrl(inputs);
  const stored = await state.profile(profile);
  const source = sourceOf(inputs, stored);
  // A CI seed belongs to the server the job names, never to a profile's.
  const remembered = source === 'headless' ? undefined : (stored?.baseUrl ?? (await state.rememberedBaseUrl(profile)));
  // SCHOOL_TOKEN and a CI seed need no stored profile; anonymous needs none either.
  if (inputs.profileMustExist && !stored && !remembered && source === 'none' && !inputs.anonymous && (inputs.profile || inputs.env.SCHOOL_PROFILE)) {
    throw await unknownProfile(state, profile, explicit);
  }
  const baseUrl = explicit ?? (remembered ? normalizeBaseUrl(remembered) : undefined);
  // A CI seed belongs to the server the job names: no profile's is offered for it.
  const suggestedBaseUrl = baseUrl || source === 'headless' ? undefined : await suggestBaseUrl(state, profile);
  const description = await describedBy(state, inputs, profile, baseUrl);
  return {
    profile,
    baseUrl,
    explicitBaseUrl: explicit,
    source,
    stored,
    ...(suggestedBaseUrl ? { suggestedBaseUrl } : {}),
    ...(description ? { description } : {}),
  };
}

/**
 * The description's source: `--description`, else SCHOOL_API_DESCRIPTION, else the one the profile
 * remembers for this very base URL (a description of one server is never used for another
 * unasked). An empty `--description ''` goes back to `<base URL>/openapi.json`, and is remembered so.
 */
async function describedBy(state: TargetState, inputs: TargetInputs, profile: string, baseUrl: string | undefined): Promise<Target['description']> {
  if (inputs.description !== undefined) {
    if (!inputs.description.trim()) return baseUrl ? { kind: 'url', location: `${baseUrl}/openapi.json`, remember: true } : undefined;
    return { ...descriptionSource(inputs.description), remember: true };
  }
  const fromEnv = inputs.env.SCHOOL_API_DESCRIPTION;
  if (fromEnv?.trim()) return descriptionSource(fromEnv);
  if (!baseUrl || !state.rememberedDescription) return undefined;
  const remembered = await state.rememberedDescription(profile).catch(() => undefined);
  if (!remembered || remembered.baseUrl !== baseUrl) return undefined;
  try {
    return descriptionSource(remembered.location);
  } catch {
    // A hand-edited entry that no longer reads as a source: the default, as if none were kept.
    return undefined;
  }
}
