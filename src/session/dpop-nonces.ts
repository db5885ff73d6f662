import type { HttpClient } from '../http/client.js';
import type { DpopProver } from '../oauth/dpop.js';
import type { DpopNonceMemory } from './usable-session.js';

// Per prover (per key), the nonce last seen of each origin in this process.
const nonceBook = new WeakMap<DpopProver, Map<string, string | undefined>>();

function knownNonces(prover: DpopProver): Map<string, string | undefined> {
  let known = nonceBook.get(prover);
  if (!known) nonceBook.set(prover, (known = new Map()));
  return known;
}

/**
 * Before the first proof to an origin in this process: the nonce an earlier process was given
 * there (RFC 9449 §8, §9), so that the request is not refused only to learn it.
 */
export async function recallNonce(prover: DpopProver, url: URL, memory: DpopNonceMemory | undefined): Promise<void> {
  const known = knownNonces(prover);
  if (known.has(url.origin)) return;
  const remembered = await memory?.recall(url.origin).catch(() => undefined);
  known.set(url.origin, remembered);
  prover.keepNonce(url, remembered);
}

/** The nonce an answer gave: used for the next proof, and remembered for the next process when it is new. */
export async function noteNonce(prover: DpopProver, url: URL, nonce: string | undefined, memory: DpopNonceMemory | undefined): Promise<void> {
  const known = knownNonces(prover);
  if (!nonce || nonce === known.get(url.origin)) return;
  known.set(url.origin, nonce);
  prover.keepNonce(url, nonce);
  await memory?.remember(url.origin, nonce).catch(() => undefined);
}

/** An HTTP client that notes the nonce of every answer, for the requests oauth4webapi makes with its own proofs. */
export function notingNonces(http: HttpClient, prover: DpopProver, memory: DpopNonceMemory | undefined): HttpClient {
  return {
    async request(req) {
      const res = await http.request(req);
      await noteNonce(prover, new URL(req.url), res.headers['dpop-nonce'], memory);
      return res;
    },
  };
}
