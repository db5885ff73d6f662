import type { HttpClient, HttpRequest, HttpResponse } from '../http/client.js';
import { parseChallenges } from '../oauth/challenge.js';
import { dpopProver, retryOnceForNonce } from '../oauth/dpop.js';
import { noteNonce, recallNonce } from './dpop-nonces.js';
import type { Session } from './usable-session.js';

/** Whether a protected resource's answer asks for a (new) DPoP nonce (RFC 9449 §9). */
async function asksForNonce(res: HttpResponse): Promise<boolean> {
  if (res.status !== 401 || !res.headers['dpop-nonce']) return false;
  return (await parseChallenges(res.headers['www-authenticate'])).some((c) => c.scheme === 'dpop' && c.parameters.error === 'use_dpop_nonce');
}

/**
 * Sends a request of the API with the session's access token: as a Bearer token (RFC 6750), or,
 * when the token is bound to a key, with the DPoP scheme and a fresh proof of the key for this
 * method and URL (RFC 9449 §7). A nonce the API asks for is used and the request sent once more;
 * asking again right after is a loop this CLI does not follow. Every front-end's API requests go
 * through here: `call`, the library and `school mcp`.
 */
export async function sendAuthorized(http: HttpClient, session: Pick<Session, 'accessToken' | 'dpopKey' | 'dpopNonces'>, req: HttpRequest & { method: string; url: URL }): Promise<HttpResponse> {
  const { accessToken, dpopKey, dpopNonces } = session;
  if (!dpopKey) return http.request({ ...req, headers: { ...req.headers, authorization: `Bearer ${accessToken}` } });
  const prover = await dpopProver(dpopKey);
  await recallNonce(prover, req.url, dpopNonces);
  const send = async () => {
    const res = await http.request({ ...req, headers: { ...req.headers, authorization: `DPoP ${accessToken}`, dpop: await prover.proof(req.method, req.url, accessToken) } });
    await noteNonce(prover, req.url, res.headers['dpop-nonce'], dpopNonces);
    return res;
  };
  return retryOnceForNonce('API', send, asksForNonce);
}
