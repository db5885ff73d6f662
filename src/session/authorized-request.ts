import type { HttpClient, HttpRequest, HttpResponse } from '../http/client.js';
import { parseChallenges } from '../oauth/challenge.js';
import { type DpopProver, dpopProver, nonceLoop } from '../oauth/dpop.js';
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
  const { accessToken, dpopKey } = session;
  if (!dpopKey) return http.request({ ...req, headers: { ...req.headers, authorization: `Bearer ${accessToken}` } });
  const prover = await dpopProver(dpopKey);
  const origin = req.url.origin;
  const known = knownNonces(prover);
  // The first request to an origin in this process starts from the nonce an earlier one was given.
  if (!known.has(origin)) {
    const remembered = await session.dpopNonces?.recall(origin).catch(() => undefined);
    known.set(origin, remembered);
    prover.keepNonce(req.url, remembered);
  }
  const send = async () => {
    const res = await http.request({ ...req, headers: { ...req.headers, authorization: `DPoP ${accessToken}`, dpop: await prover.proof(req.method, req.url, accessToken) } });
    const nonce = res.headers['dpop-nonce'];
    if (nonce && nonce !== known.get(origin)) {
      known.set(origin, nonce);
      prover.keepNonce(req.url, nonce);
      await session.dpopNonces?.remember(origin, nonce).catch(() => undefined);
    }
    return res;
  };
  const first = await send();
  if (!(await asksForNonce(first))) return first;
  const second = await send();
  if (await asksForNonce(second)) throw nonceLoop('API');
  return second;
}

// Per prover (per key), the nonce last seen of each origin in this process.
const nonceBook = new WeakMap<DpopProver, Map<string, string | undefined>>();

function knownNonces(prover: DpopProver): Map<string, string | undefined> {
  let known = nonceBook.get(prover);
  if (!known) nonceBook.set(prover, (known = new Map()));
  return known;
}
