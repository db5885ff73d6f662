import { AuthError } from '../errors.js';
import { clientOf } from '../oauth/client.js';
import { ServerRefusal } from '../oauth/oauth-errors.js';
import { refreshGrant } from '../oauth/refresh.js';
import { type Deps, nowSeconds } from '../deps.js';
import { StateProblem } from '../state/problems.js';
import type { TokenSet } from '../state/token-set.js';
import type { HttpClient } from '../http/client.js';
import { dpopProver } from '../oauth/dpop.js';
import type { DpopKey } from '../types/tokens.js';
import { notingNonces, recallNonce } from './dpop-nonces.js';
import { whileRefreshInFlight } from './refresh-in-flight.js';
import { type Session, type DpopNonceMemory, sessionFrom } from './usable-session.js';
import { needsRefresh } from './refresh-policy.js';
import { serverFor } from './server.js';

const REFRESH_TIMEOUT_MS = 120_000;

/** The refusals that end a session: the grant or the client is no longer accepted. */
const ENDS_SESSION = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client']);

/**
 * The lock of a profile's stored tokens: held by a refresh from reading them to writing the new
 * ones, and by a login while it replaces them, so neither overwrites what the other stored.
 */
export function profileLockName(profile: string): string {
  return `refresh-${profile}`;
}

interface StoredTokens {
  read(): Promise<TokenSet>;
  write(set: TokenSet): Promise<void>;
  /** Records that the server ended the session, so later commands need not ask it again. */
  refused?(detail: string): Promise<void>;
}

export interface RefreshOutcome {
  set: TokenSet;
  refreshed: boolean;
  /** The refresh token that was spent, when a refresh happened. */
  spentRefreshToken?: string;
}

/**
 * The HTTP client of a refresh with a DPoP key: its first proof carries the nonce the token
 * endpoint last gave (another process may have learned it), and a new one is remembered.
 */
async function tokenEndpointClient(http: HttpClient, key: DpopKey, tokenEndpoint: string, memory: DpopNonceMemory | undefined): Promise<HttpClient> {
  const prover = await dpopProver(key);
  await recallNonce(prover, new URL(tokenEndpoint), memory);
  return notingNonces(http, prover, memory);
}

interface RefreshContext {
  baseUrl: string;
  /** The login that fixes a session that cannot be renewed: its sentence, and its command when there is one. */
  loginFix: { hint: string; command?: string };
  refusedHint?: string | ((refusal: ServerRefusal) => string);
  clientSecret?: string;
  force: boolean;
  seenAccessToken?: string;
  minTtlSeconds?: number;
  /** Where the DPoP nonces servers gave are remembered between processes. */
  dpopNonces?: DpopNonceMemory;
}

/** Where a renewable session's tokens live and how they are renewed: a profile's login, or a CI job's seed. */
export interface RenewableSource {
  lockName: string;
  stored: StoredTokens;
  ctx: Omit<RefreshContext, 'force' | 'seenAccessToken' | 'minTtlSeconds'>;
  base: Pick<Session, 'profile' | 'baseUrl' | 'source' | 'dpopNonces'>;
  /** What a refresh's outcome is kept as (a CI job says when its seed was rotated). */
  afterRefresh?: (outcome: RefreshOutcome) => Promise<TokenSet>;
}

/**
 * The session of stored tokens, refreshed first when they would not last `minTtlSeconds` (or
 * there is no access token yet), with the two ways of renewing it every front-end uses: `refresh`
 * after a 401 (forced, unless another process already replaced the token refused), and `renew`
 * when the token is due (under the lock, where another process's refresh is found instead).
 */
export async function renewableSession(deps: Pick<Deps, 'http' | 'state' | 'clock' | 'signal'>, source: RenewableSource, first: TokenSet, minTtlSeconds = 0): Promise<Session> {
  const refreshed = async (when: Pick<RefreshContext, 'force' | 'seenAccessToken' | 'minTtlSeconds'>): Promise<TokenSet> => {
    const outcome = await refreshLocked(deps, source.lockName, source.stored, { ...source.ctx, ...when });
    return source.afterRefresh ? source.afterRefresh(outcome) : outcome.set;
  };
  const make = (set: TokenSet): Session =>
    sessionFrom(set, source.base, set.refreshToken ? async () => make(await refreshed({ force: true, seenAccessToken: set.accessToken })) : undefined, async (minTtl) =>
      make(await refreshed({ force: false, minTtlSeconds: minTtl })),
    );
  const due = !first.accessToken || needsRefresh(first, nowSeconds(deps), minTtlSeconds);
  return make(due ? await refreshed({ force: false, minTtlSeconds }) : first);
}

/**
 * Refreshes under a lock shared by every process: the holder re-reads the store, refreshes only if
 * still needed, and writes before releasing; the others then find the fresh token. A rotating
 * refresh token is therefore spent exactly once.
 */
async function refreshLocked(deps: Pick<Deps, 'http' | 'state' | 'clock' | 'signal'>, lockName: string, stored: StoredTokens, ctx: RefreshContext): Promise<RefreshOutcome> {
  return deps.state.locked(lockName, deps.signal, async () => {
    const current = await stored.read();
    const stillNeeded = ctx.force ? current.accessToken === ctx.seenAccessToken : needsRefresh(current, nowSeconds(deps), ctx.minTtlSeconds);
    if (!stillNeeded) return { set: current, refreshed: false };
    const refreshToken = current.refreshToken;
    if (!refreshToken) {
      throw new AuthError('The access token has expired and there is no refresh token.', { code: 'refresh_refused', ...ctx.loginFix });
    }
    const server = await serverFor(deps, ctx.baseUrl, current.issuer);
    const http = current.dpopKey ? await tokenEndpointClient(deps.http, current.dpopKey, String(server.as.token_endpoint), ctx.dpopNonces) : deps.http;
    try {
      // From here until the answer is stored, Ctrl-C waits: the server may already have rotated the token.
      const next = await whileRefreshInFlight(async () => {
        const answer = await refreshGrant(http, server.as, clientOf(current, ctx.clientSecret, server.as), {
          current: { ...current, refreshToken },
          nowSeconds: nowSeconds(deps),
          timeoutMs: REFRESH_TIMEOUT_MS,
        });
        await stored.write(answer);
        return answer;
      });
      return { set: next, refreshed: true, spentRefreshToken: refreshToken };
    } catch (err) {
      if (err instanceof ServerRefusal && ENDS_SESSION.has(err.error)) {
        await stored.refused?.(err.detail);
        const refusedHint = typeof ctx.refusedHint === 'function' ? ctx.refusedHint(err) : ctx.refusedHint;
        throw new StateProblem('refused', `The server refused to renew the session (${err.detail}).`, refusedHint ? { hint: refusedHint } : ctx.loginFix);
      }
      throw err;
    }
  });
}
