import { AuthError, UsageError } from '../errors.js';
import { type Deps, nowSeconds } from '../deps.js';
import type { Profile } from '../types/profile.js';
import type { TokenSet } from '../types/tokens.js';
import { EXAMPLE_BASE_URL, loginFix } from '../util/login-command.js';
import { profileSuffix } from '../util/profiles.js';
import { registerSecret } from '../util/redact.js';
import { headlessSession } from './headless.js';
import { profileLockName, renewableSession } from './refresh.js';
import type { Target } from './target.js';
import type { Session } from './usable-session.js';

export type { Session } from './usable-session.js';

export interface SessionOptions {
  /** Messages for the user (the session itself writes nothing); the front-end decides where they go. */
  notify?: (text: string) => void;
  /** The access token must stay valid at least this long: refresh first when it would not. */
  minTtlSeconds?: number;
}

async function profileSession(deps: Deps, target: Target, profile: Profile, minTtlSeconds = 0): Promise<Session> {
  const name = target.profile;
  const baseUrl = profile.baseUrl;
  // --base-url and SCHOOL_BASE_URL both name the server explicitly: never quietly use another one.
  const explicit = target.explicitBaseUrl;
  if (explicit && explicit !== baseUrl) {
    throw new UsageError(`Profile "${name}" is logged in to ${baseUrl}, not ${explicit}.`, {
      ...loginFix(name, explicit, 'Use another --profile for a second school, or log in to this one'),
    });
  }
  const stored = {
    read: () => deps.state.readTokens(name, profile),
    write: (set: TokenSet) => deps.state.saveTokens(name, profile.storage, set),
    refused: (detail: string) => deps.state.markSessionRefused(name, detail, nowSeconds(deps)),
  };
  // The DPoP nonces servers gave, tried by the next process before it is refused to learn them.
  const dpopNonces = {
    recall: (origin: string) => deps.state.dpopNonce(origin, nowSeconds(deps)),
    remember: (origin: string, nonce: string) => deps.state.saveDpopNonce(origin, nonce, nowSeconds(deps)),
  };
  return renewableSession(
    deps,
    {
      lockName: profileLockName(name),
      stored,
      ctx: { baseUrl, loginFix: loginFix(name, baseUrl), dpopNonces },
      base: { profile: name, baseUrl, source: profile.storage, dpopNonces },
    },
    await stored.read(),
    minTtlSeconds,
  );
}

/**
 * The session of a resolved target (see target.ts): SCHOOL_TOKEN as it is; else headless CI mode;
 * else the profile's stored login (refreshed when about to expire). Undefined when the target has
 * no credentials (anonymous, or not logged in).
 */
export async function resolveSession(deps: Deps, target: Target, options: SessionOptions = {}): Promise<Session | undefined> {
  const env = deps.env;
  switch (target.source) {
    case 'none':
      return undefined;
    case 'env_token': {
      const token = env.SCHOOL_TOKEN ?? '';
      registerSecret(token);
      if (!target.baseUrl) throw new UsageError('SCHOOL_TOKEN needs SCHOOL_BASE_URL (or --base-url): a token is only ever sent to the origin it is for.');
      return { profile: target.profile, baseUrl: target.baseUrl, accessToken: token, tokenType: 'bearer', source: 'env', issuer: target.stored?.issuer };
    }
    case 'headless':
      return headlessSession(deps, target, env.SCHOOL_REFRESH_TOKEN ?? '', options);
    case 'profile':
      return target.stored ? profileSession(deps, target, target.stored, options.minTtlSeconds) : undefined;
  }
}

/** Exit 4 with the login command line; the base URL in it is the one given, else the one this profile last used. */
export function notLoggedIn(target: Pick<Target, 'profile' | 'baseUrl' | 'suggestedBaseUrl'>): AuthError {
  return new AuthError(`Not logged in${profileSuffix(target.profile)}.`, {
    code: 'not_logged_in',
    ...loginFix(target.profile, target.baseUrl ?? target.suggestedBaseUrl ?? EXAMPLE_BASE_URL),
  });
}
