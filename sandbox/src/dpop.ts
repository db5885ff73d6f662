// DPoP (RFC 9449) at the resource server (the API and userinfo): proof checks, the sandbox's
// own resource nonces, and the thumbprint of a proof's key for the events. The token, PAR and
// revocation endpoints are oidc-provider's, which checks proofs there itself.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from 'jose';

/** How the resource server treats DPoP nonces. */
export type ResourceNonces = 'none' | 'required' | 'loop';

/** How many seconds a proof's iat may be away from now. */
const PROOF_IAT_WINDOW = 60;
/** A nonce is valid in its window and the next one. */
const NONCE_WINDOW_MS = 5 * 60 * 1000;
/** Seen jtis are kept this long: longer than any proof's iat stays acceptable. */
const JTI_MEMORY_MS = 5 * 60 * 1000;

export interface ProofCheck {
  ok: boolean;
  /** invalid_dpop_proof or use_dpop_nonce when not ok. */
  error?: 'invalid_dpop_proof' | 'use_dpop_nonce';
  description?: string;
}

/** The resource server's DPoP state for one sandbox: its algorithms, nonces and seen jtis. */
export class ResourceDpop {
  readonly algs: string[];
  readonly nonces: ResourceNonces;
  readonly #secret = randomBytes(32);
  readonly #seen = new Map<string, number>();

  constructor(algs: string[], nonces: ResourceNonces) {
    this.algs = algs;
    this.nonces = nonces;
  }

  #nonceFor(window: number): string {
    return createHmac('sha256', this.#secret).update(`dpop-nonce:${window}`).digest('base64url');
  }

  /** The nonce to hand out now: the current window's, or, in the loop variant, a new one every time. */
  nextNonce(): string | undefined {
    if (this.nonces === 'none') return undefined;
    if (this.nonces === 'loop') return randomBytes(16).toString('base64url');
    return this.#nonceFor(Math.floor(Date.now() / NONCE_WINDOW_MS));
  }

  #nonceValid(nonce: unknown): boolean {
    if (typeof nonce !== 'string') return false;
    const window = Math.floor(Date.now() / NONCE_WINDOW_MS);
    return nonce === this.#nonceFor(window) || nonce === this.#nonceFor(window - 1);
  }

  #remember(jti: string): boolean {
    const now = Date.now();
    for (const [seen, at] of this.#seen) if (now - at > JTI_MEMORY_MS) this.#seen.delete(seen);
    if (this.#seen.has(jti)) return false;
    this.#seen.set(jti, now);
    return true;
  }

  /**
   * Checks a proof for an access token bound to `jkt`, sent with `method` to `url` (origin and
   * path; the query and fragment are not part of htu). The jti is remembered only once every
   * other check has passed, so a proof refused for its nonce can be told apart from a replay.
   */
  async check(proof: string, opts: { jkt: string; method: string; url: string; accessToken: string }): Promise<ProofCheck> {
    const refuse = (description: string): ProofCheck => ({ ok: false, error: 'invalid_dpop_proof', description });
    let payload: Record<string, unknown>;
    let jwk: Record<string, unknown>;
    try {
      const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: this.algs });
      payload = verified.payload as Record<string, unknown>;
      jwk = verified.protectedHeader.jwk as Record<string, unknown>;
    } catch {
      return refuse(`the DPoP proof is not a dpop+jwt signed with its embedded key using one of ${this.algs.join(', ')}`);
    }
    if ((await calculateJwkThumbprint(jwk as Parameters<typeof calculateJwkThumbprint>[0], 'sha256')) !== opts.jkt) {
      return refuse("the DPoP proof's key is not the key the access token is bound to");
    }
    if (payload.htm !== opts.method) return refuse(`the DPoP proof's htm does not match the request method ${opts.method}`);
    if (typeof payload.htu !== 'string' || !sameHtu(payload.htu, opts.url)) {
      return refuse(`the DPoP proof's htu does not match the request URL ${opts.url}`);
    }
    if (payload.ath !== createHash('sha256').update(opts.accessToken).digest('base64url')) {
      return refuse("the DPoP proof's ath does not match the access token");
    }
    if (typeof payload.iat !== 'number' || Math.abs(Date.now() / 1000 - payload.iat) > PROOF_IAT_WINDOW) {
      return refuse(`the DPoP proof's iat is not within ${PROOF_IAT_WINDOW} seconds of now`);
    }
    if (typeof payload.jti !== 'string' || payload.jti === '') return refuse('the DPoP proof has no jti');
    if (this.nonces === 'required' && !this.#nonceValid(payload.nonce)) {
      return {
        ok: false,
        error: 'use_dpop_nonce',
        description: payload.nonce === undefined ? 'the resource server requires a DPoP nonce' : 'the DPoP nonce is not valid or has expired',
      };
    }
    if (!this.#remember(payload.jti)) return refuse("the DPoP proof's jti was seen before (a replayed proof)");
    return { ok: true };
  }
}

function sameHtu(htu: string, expected: string): boolean {
  const actual = URL.parse(htu);
  if (!actual) return false;
  actual.search = '';
  actual.hash = '';
  return actual.href === new URL(expected).href;
}

/**
 * The request's DPoP header, repeated ones joined with ", " as Node joins them (a compact JWS
 * never contains a comma, so a joined value is never a valid proof).
 */
export function dpopHeaderOf(req: IncomingMessage): string | undefined {
  const value = req.headers.dpop;
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The SHA-256 JWK thumbprint of a proof's embedded key, read without verifying the proof, for
 * the events: null without a proof, 'unreadable' when no key can be read from it.
 */
export async function proofThumbprint(proof: string | undefined): Promise<string | null> {
  if (proof === undefined) return null;
  try {
    const { jwk } = decodeProtectedHeader(proof);
    if (!jwk) return 'unreadable';
    return await calculateJwkThumbprint(jwk, 'sha256');
  } catch {
    return 'unreadable';
  }
}

export function dpopChallenge(error: string, description: string, algs: string[], extra = ''): string {
  return `DPoP error=${quote(error)}, error_description=${quote(description)}${extra}, algs=${quote(algs.join(' '))}`;
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}
