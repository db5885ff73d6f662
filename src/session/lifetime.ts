import { AuthError } from '../errors.js';
import { lastsAtLeast } from './refresh-policy.js';
import type { Session } from './usable-session.js';

/**
 * Exit 4 unless the session's access token stays valid `minTtlSeconds` more: a lifetime nobody told
 * us cannot be promised (SCHOOL_TOKEN, a server that gives no `expires_in`), and even a fresh token
 * may be too short-lived, since the server decides how long its tokens last.
 */
export function requireLifetime(session: Pick<Session, 'expiresAt' | 'source'>, nowSeconds: number, minTtlSeconds: number): void {
  if (minTtlSeconds > 0 && session.expiresAt === undefined) {
    throw new AuthError(`How long this access token stays valid is not known, so it cannot be promised for ${minTtlSeconds} seconds.`, {
      code: 'ttl_unavailable',
      hint: session.source === 'env' ? 'Drop --min-ttl for a token from SCHOOL_TOKEN, or use a login or a CI seed instead.' : 'Drop --min-ttl; the server does not say when its tokens expire.',
    });
  }
  if (!lastsAtLeast(session, nowSeconds, minTtlSeconds)) {
    const left = Math.max(0, (session.expiresAt ?? 0) - nowSeconds);
    throw new AuthError(`The server provides no access token valid for ${minTtlSeconds} seconds: the freshest one it gave lasts ${left} more seconds.`, {
      code: 'ttl_unavailable',
      hint: `Ask for less with --min-ttl (below ${left}), or renew the token when it runs out.`,
    });
  }
}
