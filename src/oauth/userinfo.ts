import type { HttpClient } from '../http/client.js';
import type { Challenge } from './challenge.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './library.js';
import { fromOAuthError } from './oauth-errors.js';

export type UserInfoResult =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; status: number; challenges: Challenge[]; error?: string };

/**
 * The userinfo endpoint (OpenID Connect Core 5.3) with the access token. Its `sub` must be the ID
 * token's `sub` (5.3.2) when login received an ID token; without one there is nothing to compare.
 */
export async function requestUserInfo(
  http: HttpClient,
  as: AuthorizationServer,
  p: { clientId: string; accessToken: string; expectedSubject?: string; signal?: AbortSignal },
): Promise<UserInfoResult> {
  const oauth = await loadOAuth();
  const client = { client_id: p.clientId };
  let res: Response;
  try {
    res = await oauth.userInfoRequest(as, client, p.accessToken, requestOptions(oauth, http, p.signal));
  } catch (err) {
    throw fromOAuthError(err);
  }
  const answer = res.clone();
  try {
    const claims: Record<string, unknown> = await oauth.processUserInfoResponse(as, client, p.expectedSubject ?? oauth.skipSubjectCheck, res);
    return { ok: true, claims };
  } catch (err) {
    if (err instanceof oauth.WWWAuthenticateChallengeError) return { ok: false, status: err.status, challenges: err.cause };
    if (answer.status !== 200) {
      const body: unknown = await answer.json().catch(() => undefined);
      const error = body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' ? body.error : undefined;
      return { ok: false, status: answer.status, challenges: [], error };
    }
    throw fromOAuthError(err);
  }
}
