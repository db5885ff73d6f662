import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { Challenge } from './challenge.js';
import type { DpopKey } from '../types/tokens.js';
import { dpopOption, dpopProver, withNonceRetry } from './dpop.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';
import { fromOAuthError } from './oauth-errors.js';

export type UserInfoResult = { ok: true; claims: Record<string, unknown> } | { ok: false; status: number; challenges: Challenge[]; error?: string };

/**
 * The userinfo endpoint (OpenID Connect Core 5.3) with the access token. Its `sub` must be the ID
 * token's `sub` (5.3.2) when login received an ID token; without one there is nothing to compare.
 */
export async function requestUserInfo(
  http: HttpClient,
  as: AuthorizationServer,
  p: { clientId: string; accessToken: string; expectedSubject?: string; signal?: AbortSignal; dpopKey?: DpopKey },
): Promise<UserInfoResult> {
  const oauth = await loadOAuth();
  const client = { client_id: p.clientId };
  // A token bound to a key goes with a proof of it (RFC 9449 §7), sent once more on a nonce challenge (§9).
  const prover = p.dpopKey ? await dpopProver(p.dpopKey) : undefined;
  let answer: Response | undefined;
  try {
    const claims: Record<string, unknown> = await withNonceRetry('userinfo endpoint', prover, async () => {
      const res = await oauth.userInfoRequest(as, client, p.accessToken, { ...requestOptions(oauth, http, p.signal), ...dpopOption(prover) });
      answer = res.clone();
      return oauth.processUserInfoResponse(as, client, p.expectedSubject ?? oauth.skipSubjectCheck, res);
    });
    return { ok: true, claims };
  } catch (err) {
    // A loop of nonce challenges is an error of its own, not an answer to report.
    if (err instanceof CliError) throw err;
    if (err instanceof oauth.WWWAuthenticateChallengeError) return { ok: false, status: err.status, challenges: err.cause };
    if (answer && answer.status !== 200) {
      const body: unknown = await answer.json().catch(() => undefined);
      const error = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : undefined;
      return { ok: false, status: answer.status, challenges: [], error };
    }
    throw fromOAuthError(err);
  }
}
