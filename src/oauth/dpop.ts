import type * as OAuthModule from 'oauth4webapi';
import { CliError } from '../errors.js';
import { PlainHeaders } from '../http/web-types.js';
import type { DpopKey } from '../types/tokens.js';
import { registerSecret } from '../util/redact.js';
import type { ServerInfo } from '../types/server.js';
import { type AuthorizationServer, type OAuth, loadOAuth } from './oauth4webapi.js';
import { loginCommandText } from '../util/login-command.js';

/** The one proof algorithm this CLI signs with (RFC 9449 names ES256 as the one to support). */
const DPOP_ALGORITHM = 'ES256';

/** Whether the server's metadata offers DPoP with an algorithm the CLI signs with. */
export function offersDpop(as: AuthorizationServer): boolean {
  const algs: unknown = as.dpop_signing_alg_values_supported;
  return Array.isArray(algs) && algs.includes(DPOP_ALGORITHM);
}

/**
 * Whether a login binds its tokens to a key: the authorization server offers DPoP with an algorithm
 * the CLI signs with, AND the resource accepts DPoP (its RFC 9728 metadata lists
 * `dpop_signing_alg_values_supported` or sets `dpop_bound_access_tokens_required`). An
 * authorization server that offers DPoP in front of an API that takes bearer tokens only is common,
 * and a bound token is useless there; an API whose metadata says nothing of DPoP is taken as such.
 */
export function usesDpop(server: Pick<ServerInfo, 'as' | 'resourceDpop'>): boolean {
  return offersDpop(server.as) && server.resourceDpop !== undefined;
}

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** A new key pair for a login's tokens to be bound to. */
export async function createDpopKey(): Promise<DpopKey> {
  const pair = await crypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const key: DpopKey = { kty: 'EC', crv: 'P-256', x: String(jwk.x), y: String(jwk.y), d: String(jwk.d) };
  registerSecret(key.d);
  return key;
}

/**
 * What oauth4webapi's DPoP handle does for its own requests, used here for the requests it does
 * not make (the API, revocation): sign a proof into the headers, and keep a nonce an answer gives.
 * Its type declares neither method, so they are checked when the handle is made, and
 * test/unit/dpop.test.ts verifies the proofs they sign: an upgrade that changes them fails there,
 * not at a user's. The installed CLI runs the copy bundled at build time.
 */
interface ProofSigner {
  addProof(url: URL, headers: Headers, htm: string, accessToken?: string): Promise<void>;
  cacheNonce(response: { headers: { get(name: string): string | null } }, url: URL): void;
}

function isProofSigner(handle: unknown): handle is ProofSigner {
  const h = handle as Partial<ProofSigner> | null;
  return typeof h?.addProof === 'function' && typeof h.cacheNonce === 'function';
}

/** The proofs of one key: for oauth4webapi's requests (the handle) and for the CLI's own. */
export interface DpopProver {
  /** Given to oauth4webapi's token, PAR, userinfo and device requests (its `DPoP` option). */
  readonly handle: OAuthModule.DPoPHandle;
  /** A proof for one request; `accessToken` for a request that carries one (its hash goes in `ath`). */
  proof(method: string, url: URL, accessToken?: string): Promise<string>;
  /** Keeps the `DPoP-Nonce` of an answer for the next proof to that origin (RFC 9449 §8, §9). */
  keepNonce(url: URL, nonce: string | undefined): void;
  /** The key's JWK SHA-256 thumbprint, for `dpop_jkt` (RFC 9449 §10). */
  thumbprint(): Promise<string>;
}

// One prover per key and process: the server's nonces are kept in it, so a refresh and the API
// request after it share what the server last said.
const provers = new Map<string, Promise<DpopProver>>();

async function makeProver(oauth: OAuth, key: DpopKey): Promise<DpopProver> {
  const { d, ...publicJwk } = key;
  const privateKey = await crypto.subtle.importKey('jwk', { ...publicJwk, d }, EC_KEY, false, ['sign']);
  const publicKey = await crypto.subtle.importKey('jwk', publicJwk, EC_KEY, true, ['verify']);
  const handle = oauth.DPoP({}, { privateKey, publicKey });
  if (!isProofSigner(handle)) throw new CliError('This build of the OAuth library cannot sign DPoP proofs for API requests.', { code: 'internal_error' });
  return {
    handle,
    async proof(method, url, accessToken) {
      // Not the global Headers: its first use loads Node's fetch implementation, tens of ms of every `call`.
      const headers = new PlainHeaders();
      await handle.addProof(url, headers as unknown as Headers, method.toUpperCase(), accessToken);
      const proof = headers.get('dpop');
      if (!proof) throw new CliError('No DPoP proof could be signed.', { code: 'internal_error' });
      return proof;
    },
    keepNonce(url, nonce) {
      if (nonce) handle.cacheNonce({ headers: { get: (name) => (name.toLowerCase() === 'dpop-nonce' ? nonce : null) } }, url);
    },
    thumbprint: () => handle.calculateThumbprint(),
  };
}

/** The prover of a stored key (made once per process). */
export async function dpopProver(key: DpopKey): Promise<DpopProver> {
  registerSecret(key.d);
  const id = `${key.x}.${key.y}`;
  let prover = provers.get(id);
  if (!prover) {
    prover = loadOAuth().then((oauth) => makeProver(oauth, key));
    provers.set(id, prover);
    prover.catch(() => provers.delete(id));
  }
  return prover;
}

/** The request options that make oauth4webapi sign its request with the key, when there is one. */
export function dpopOption(prover: DpopProver | undefined): { DPoP?: OAuthModule.DPoPHandle } {
  return prover ? { DPoP: prover.handle } : {};
}

/**
 * The error for a server that asks for a new nonce again right after the CLI used the one it
 * gave: answering forever would be a loop the server controls.
 */
function nonceLoop(where: string): CliError {
  return new CliError(`The ${where} asked for a new DPoP nonce twice in a row; giving up rather than asking again.`, {
    code: 'dpop_nonce_loop',
    hint: `Report it to the server operator; \`${loginCommandText({ options: ['--no-dpop'] })}\` logs in without DPoP meanwhile.`,
  });
}

/**
 * The one nonce retry of every DPoP request: sends, and sends once more when the answer asks for a
 * (new) nonce (RFC 9449 §8, §9); an answer that asks again right after is a loop, not followed.
 */
export async function retryOnceForNonce<T>(where: string, send: () => Promise<T>, asksForNonce: (answer: T) => boolean | Promise<boolean>): Promise<T> {
  const first = await send();
  if (!(await asksForNonce(first))) return first;
  const second = await send();
  if (await asksForNonce(second)) throw nonceLoop(where);
  return second;
}

/**
 * One oauth4webapi request and the processing of its answer, sent again once when the server
 * answers `use_dpop_nonce`: oauth4webapi's handle has kept the nonce the answer gave.
 */
export async function withNonceRetry<T>(where: string, prover: DpopProver | undefined, step: () => Promise<T>): Promise<T> {
  if (!prover) return step();
  const oauth = await loadOAuth();
  // Only an answer that gives a nonce is worth sending again: without one the retry would be the same request.
  type Outcome = { value: T } | { error: unknown };
  const asksForNonce = (outcome: Outcome) => 'error' in outcome && oauth.isDPoPNonceError(outcome.error) && Boolean(answerOf(outcome.error)?.headers.get('dpop-nonce'));
  const settled = (): Promise<Outcome> =>
    step().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  const outcome = await retryOnceForNonce(where, settled, asksForNonce);
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** The answer an oauth4webapi error was made from (its ResponseBodyError and challenge errors carry it). */
function answerOf(err: unknown): { headers: { get(name: string): string | null } } | undefined {
  const response: unknown = err && typeof err === 'object' && 'response' in err ? err.response : undefined;
  const headers: unknown = response && typeof response === 'object' && 'headers' in response ? response.headers : undefined;
  return headers && typeof (headers as { get?: unknown }).get === 'function' ? (response as { headers: { get(name: string): string | null } }) : undefined;
}
