import { AuthError, CliError, UsageError } from '../errors.js';
import { type Deps, nowSeconds } from '../deps.js';
import { type GlobalOptions, baseUrlFor, loginHint, profileName, profileSuffix } from '../options.js';
import type { Profile } from '../state/config-file.js';
import type { TokenSet } from '../state/token-set.js';
import { registerSecret } from '../util/redact.js';
import { headlessSession } from './headless.js';
import { profileLockName, refreshLocked } from './refresh.js';
import { needsRefresh } from './refresh-policy.js';
import { type Session, sessionFrom } from './usable-session.js';

export type { Session } from './usable-session.js';

export interface SessionOptions {
  /** Messages for the user (the session itself writes nothing); the command decides where they go. */
  notify?: (text: string) => void;
  /** The access token must stay valid at least this long: refresh first when it would not. */
  minTtlSeconds?: number;
}

async function profileSession(deps: Deps, name: string, profile: Profile, opts: GlobalOptions, minTtlSeconds = 0): Promise<Session> {
  const baseUrl = profile.baseUrl;
  // --base-url and SCHOOL_BASE_URL both name the server explicitly: never quietly use another one.
  const explicit = baseUrlFor(opts, deps.env);
  if (explicit && explicit !== baseUrl) {
    throw new UsageError(`Profile "${name}" is logged in to ${baseUrl}, not ${explicit}.`, {
      hint: `Use another --profile for a second school, or ${loginHint(name, explicit).toLowerCase()}`,
    });
  }
  const stored = {
    read: () => deps.state.readTokens(name, profile),
    write: (set: TokenSet) => deps.state.saveTokens(name, profile.storage, set),
    refused: (detail: string) => deps.state.markSessionRefused(name, detail, nowSeconds(deps)),
  };
  const lockName = profileLockName(name);
  const ctx = { baseUrl, loginHint: loginHint(name, baseUrl) };
  const base = { profile: name, baseUrl, source: profile.storage };
  const make = (set: TokenSet): Session =>
    sessionFrom(
      set,
      base,
      set.refreshToken ? async () => make((await refreshLocked(deps, lockName, stored, { ...ctx, force: true, seenAccessToken: set.accessToken })).set) : undefined,
    );
  let set = await stored.read();
  if (needsRefresh(set, nowSeconds(deps), minTtlSeconds)) set = (await refreshLocked(deps, lockName, stored, { ...ctx, force: false, minTtlSeconds })).set;
  return make(set);
}

/**
 * The session a command should use: SCHOOL_TOKEN as it is; else headless CI mode; else the
 * profile's stored login (refreshed when about to expire). Undefined when not logged in at all.
 */
export async function resolveSession(deps: Deps, opts: GlobalOptions, options: SessionOptions = {}): Promise<Session | undefined> {
  const profile = profileName(opts, deps.env);
  const env = deps.env;
  if (env.SCHOOL_TOKEN) {
    registerSecret(env.SCHOOL_TOKEN);
    const remembered = await deps.state.profile(profile);
    const baseUrl = baseUrlFor(opts, env, remembered);
    if (!baseUrl) throw new UsageError('SCHOOL_TOKEN needs SCHOOL_BASE_URL (or --base-url): a token is only ever sent to the origin it is for.');
    return { profile, baseUrl, accessToken: env.SCHOOL_TOKEN, tokenType: 'bearer', source: 'env', issuer: remembered?.issuer };
  }
  if (env.SCHOOL_REFRESH_TOKEN) return headlessSession(deps, opts, profile, env.SCHOOL_REFRESH_TOKEN, options);
  const stored = await deps.state.profile(profile);
  if (!stored) return undefined;
  return profileSession(deps, profile, stored, opts, options.minTtlSeconds);
}

/** Exit 4 with the login command line; the base URL in it is the one given, else the one this profile last used. */
export async function notLoggedIn(deps: Pick<Deps, 'env' | 'state'>, opts: GlobalOptions): Promise<CliError> {
  const profile = profileName(opts, deps.env);
  let baseUrl: string | undefined;
  try {
    const remembered = await deps.state.rememberedBaseUrl(profile);
    baseUrl = baseUrlFor(opts, deps.env, remembered ? { baseUrl: remembered } : undefined);
  } catch {
    baseUrl = undefined;
  }
  return new AuthError(`Not logged in${profileSuffix(profile)}.`, {
    code: 'not_logged_in',
    hint: loginHint(profile, baseUrl ?? 'https://your-school.example'),
  });
}
