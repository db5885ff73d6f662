import type * as OAuthModule from 'oauth4webapi';
import { isPlainScope } from '../util/plain-name.js';
import { BufferedResponse, PlainHeaders } from '../http/web-types.js';
import { asStandardResponse, loadOAuth } from './oauth4webapi.js';

export type Challenge = OAuthModule.WWWAuthenticateChallenge;

/** What a protected resource's answer asks of us, from its status and Bearer (or DPoP) challenge. */
export interface ChallengeOutcome {
  /** Worth one refresh and one retry: a Bearer or DPoP challenge saying the token is invalid (or no reason). */
  refresh: boolean;
  /** The scopes a 403 insufficient_scope names, reduced to safe scope tokens. */
  insufficientScope?: string[];
  error?: string;
  /** A 401 carrying a Bearer or DPoP challenge: the resource asks for a token (RFC 6750 §3). */
  challenged?: boolean;
  /** The scopes such a 401 challenge names, reduced to safe scope tokens. */
  scope?: string[];
  /** The protected-resource metadata such a 401 challenge names (RFC 9728 §5.1), as sent; checked where it is fetched. */
  resourceMetadata?: string;
}

export function readChallenge(status: number, challenges: readonly Challenge[]): ChallengeOutcome {
  // A DPoP-bound token is challenged with the DPoP scheme (RFC 9449 §7.1), with the same error
  // codes. A server may list both schemes: the one that names an error is the one about this request.
  const schemes = challenges.filter((c) => c.scheme === 'bearer' || c.scheme === 'dpop');
  const bearer = (schemes.find((c) => c.parameters.error) ?? schemes.find((c) => c.scheme === 'bearer') ?? schemes[0])?.parameters;
  if (status === 401) {
    const scope = (bearer?.scope ?? '').split(' ').filter(isPlainScope);
    const resourceMetadata = bearer?.resource_metadata;
    return {
      refresh: Boolean(bearer && (!bearer.error || bearer.error === 'invalid_token')),
      error: bearer?.error,
      ...(bearer ? { challenged: true } : {}),
      ...(scope.length ? { scope } : {}),
      ...(typeof resourceMetadata === 'string' && resourceMetadata ? { resourceMetadata } : {}),
    };
  }
  if (status === 403 && bearer && (bearer.error === 'insufficient_scope' || bearer.scope !== undefined)) {
    const scopes = (bearer.scope ?? '').split(' ').filter(isPlainScope);
    return { refresh: false, insufficientScope: scopes, error: bearer.error };
  }
  return { refresh: false, error: bearer?.error };
}

/**
 * The challenges of a WWW-Authenticate header, parsed by oauth4webapi. The library offers its
 * parser only through the requests it makes, so the answer already received is handed to it as
 * the response of a protected-resource request that never leaves the process.
 */
export async function parseChallenges(header: string | undefined): Promise<Challenge[]> {
  if (!header) return [];
  const oauth = await loadOAuth();
  const replay = async () => asStandardResponse(new BufferedResponse(null, { status: 401, headers: { 'www-authenticate': header } }));
  try {
    await oauth.protectedResourceRequest('replayed', 'GET', new URL('http://127.0.0.1/'), new PlainHeaders() as unknown as Headers, null, {
      [oauth.customFetch]: replay,
      [oauth.allowInsecureRequests]: true,
    });
  } catch (err) {
    if (err instanceof oauth.WWWAuthenticateChallengeError) return err.cause;
  }
  return [];
}

/** The outcome of a protected resource's answer from its status and raw WWW-Authenticate header. */
export async function readChallengeHeader(status: number, header: string | undefined): Promise<ChallengeOutcome> {
  return readChallenge(status, status === 401 || status === 403 ? await parseChallenges(header) : []);
}
