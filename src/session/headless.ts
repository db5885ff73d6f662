import { UsageError } from '../errors.js';
import type { ServerRefusal } from '../oauth/oauth-errors.js';
import { SPENT_SEED_HINT, goneClientHint } from './ci-seeds.js';
import type { Deps } from '../deps.js';
import type { TokenSet } from '../types/tokens.js';
import type { Target } from './target.js';
import { registerSecret } from '../util/redact.js';
import { type RefreshOutcome, renewableSession } from './refresh.js';
import { serverFor } from './server.js';
import type { Session } from './usable-session.js';
import { requireCommonJs } from '../util/require.js';

const REFUSED_HINT = 'The seed in SCHOOL_REFRESH_TOKEN is spent or revoked: restore the cached SCHOOL_CONFIG_DIR, or mint a new seed at a desk (see `school token --help`).';

/**
 * A spent seed may be another parallel job's doing: the hint then names the ways to run jobs in
 * parallel. A client the server no longer knows needs a new seed, whatever the cache holds.
 */
const refusedHintFor = (baseUrl: string) => (refusal: ServerRefusal) =>
  refusal.error === 'invalid_grant' ? SPENT_SEED_HINT : refusal.error === 'invalid_client' || refusal.error === 'unauthorized_client' ? goneClientHint(baseUrl) : REFUSED_HINT;

async function jobKey(seed: string, clientId: string, baseUrl: string): Promise<string> {
  const { createHash }: typeof import('node:crypto') = requireCommonJs('node:crypto');
  return createHash('sha256').update(`${baseUrl}\n${clientId}\n${seed}`).digest('hex').slice(0, 20);
}

/**
 * Headless mode for CI: SCHOOL_REFRESH_TOKEN + SCHOOL_CLIENT_ID. Tokens obtained from the seed are
 * kept between invocations of one job, keyed to the seed, so a rotated refresh token is never
 * replayed; where they are kept is the repository's choice (the keychain when usable).
 */
export async function headlessSession(
  deps: Deps,
  target: Pick<Target, 'profile' | 'explicitBaseUrl'>,
  seed: string,
  { notify, minTtlSeconds = 0 }: { notify?: (text: string) => void; minTtlSeconds?: number } = {},
): Promise<Session> {
  const env = deps.env;
  const clientId = env.SCHOOL_CLIENT_ID;
  const clientSecret = env.SCHOOL_CLIENT_SECRET || undefined;
  registerSecret(seed);
  registerSecret(clientSecret);
  if (!clientId) throw new UsageError('SCHOOL_REFRESH_TOKEN needs SCHOOL_CLIENT_ID (the client the token was issued to).');
  // Never a profile's server: the seed belongs to the server the job names.
  const baseUrl = target.explicitBaseUrl;
  if (!baseUrl) throw new UsageError('SCHOOL_REFRESH_TOKEN needs SCHOOL_BASE_URL (or --base-url).');

  const key = await jobKey(seed, clientId, baseUrl);
  const job = await deps.state.jobState(key);
  // Nothing kept yet: the seed, with an access token that counts as expired.
  const fromSeed = (): TokenSet => ({ issuer: '', clientId, accessToken: '', tokenType: 'bearer', expiresAt: 0, obtainedAt: 0, refreshToken: seed, clientSecret });
  const stored = {
    async read(): Promise<TokenSet> {
      const set = (await job.read()) ?? fromSeed();
      // The issuer is learned from the server on first use.
      if (!set.issuer) set.issuer = (await serverFor(deps, baseUrl)).as.issuer;
      return set;
    },
    write: (set: TokenSet) => job.write(set),
  };

  const afterRefresh = async (r: RefreshOutcome): Promise<TokenSet> => {
    const rotatedSeed = r.refreshed && r.spentRefreshToken === seed && r.set.refreshToken && r.set.refreshToken !== seed;
    if (rotatedSeed && !job.rotationNoticeShown) {
      notify?.(
        `Note: the server rotated the refresh token, so the value in SCHOOL_REFRESH_TOKEN is now spent.\n` +
          `The current one is kept in ${job.location} for the rest of this job; ` +
          `to carry it to the next job, keep SCHOOL_CONFIG_DIR in the job's cache, or mint a new seed.\n`,
      );
      await job.markRotationNoticeShown();
    }
    return r.set;
  };
  return renewableSession(
    deps,
    {
      lockName: `ci-${key}`,
      stored,
      ctx: { baseUrl, loginFix: { hint: REFUSED_HINT }, refusedHint: refusedHintFor(baseUrl), clientSecret },
      base: { profile: target.profile, baseUrl, source: 'env' },
      afterRefresh,
    },
    (await job.read()) ?? fromSeed(),
    minTtlSeconds,
  );
}
