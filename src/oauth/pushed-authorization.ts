import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { assertSafeUrl } from '../http/transport.js';
import { type ClientIdentity, clientAuth, oauthClient } from './client.js';
import type { DpopKey } from '../types/tokens.js';
import { dpopOption, dpopProver, withNonceRetry } from './dpop.js';
import { type AuthorizationServer, loadOAuth, requestOptions } from './oauth4webapi.js';
import { oauthStep } from './oauth-errors.js';

/** Whether the server wants authorization requests pushed (RFC 9126 §5): whenever it offers it. */
export function usesPushedRequests(as: AuthorizationServer): boolean {
  return typeof as.pushed_authorization_request_endpoint === 'string';
}

/**
 * A server that requires pushed requests but names no endpoint for them cannot be logged in to;
 * the PAR endpoint itself must be on the origin of the issuer or of the token endpoint, since it
 * receives the client's credentials as the token endpoint does and nothing else may.
 */
export function checkPushedRequestMetadata(as: AuthorizationServer): void {
  const endpoint = as.pushed_authorization_request_endpoint;
  if (endpoint === undefined) {
    if (as.require_pushed_authorization_requests === true) {
      throw new CliError(`The authorization server ${as.issuer} requires pushed authorization requests but names no pushed_authorization_request_endpoint.`, {
        code: 'discovery_failed',
      });
    }
    return;
  }
  const url = assertSafeUrl(String(endpoint), 'pushed_authorization_request_endpoint', 'server');
  const allowed = new Set([new URL(as.issuer).origin, new URL(String(as.token_endpoint)).origin]);
  if (!allowed.has(url.origin)) {
    throw new CliError(
      `The server's metadata puts the pushed_authorization_request_endpoint on another origin (${url.origin}) than the authorization server (${[...allowed].join(', ')}); refusing to send the login request there.`,
      { code: 'foreign_endpoint' },
    );
  }
}

/**
 * A `request_uri` is opaque (RFC 9126 §2.2), usually a URN. One that is a URL must be of the
 * authorization server's own origins: a URL elsewhere would have the authorization endpoint (or the
 * browser) fetch the request from a place the server did not vouch for.
 */
function checkRequestUri(as: AuthorizationServer, requestUri: string): void {
  let url: URL | undefined;
  try {
    url = new URL(requestUri);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol === 'urn:') return;
  const own = [as.issuer, String(as.pushed_authorization_request_endpoint), String(as.authorization_endpoint)].map((u) => new URL(u).origin);
  if (!own.includes(url.origin)) {
    throw new CliError(`The pushed authorization request endpoint answered a request_uri on another origin (${url.origin}); refusing it.`, {
      code: 'foreign_endpoint',
    });
  }
}

/** What a push gives: the URL the browser gets, and how long the server keeps the request behind it. */
export interface PushedRequest {
  url: string;
  /** Seconds the `request_uri` stays valid (RFC 9126 §2.2): the URL must be opened within them. */
  expiresIn: number;
}

/**
 * Pushes the parameters of an authorization URL to the PAR endpoint (RFC 9126) and returns the
 * URL the browser gets instead: the authorization endpoint with only `client_id` and `request_uri`.
 */
export async function pushAuthorizationRequest(
  http: HttpClient,
  as: AuthorizationServer,
  client: ClientIdentity,
  p: { authorizationUrl: string; signal?: AbortSignal; dpopKey?: DpopKey },
): Promise<PushedRequest> {
  checkPushedRequestMetadata(as);
  const oauth = await loadOAuth();
  const params = new URL(p.authorizationUrl).searchParams;
  params.delete('client_id');
  // With a DPoP key, the push carries a proof of it: the server binds the code to that key (RFC 9449 §10.1).
  const prover = p.dpopKey ? await dpopProver(p.dpopKey) : undefined;
  const pushed = await oauthStep('pushed authorization request endpoint', () =>
    withNonceRetry('pushed authorization request endpoint', prover, async () => {
      const res = await oauth.pushedAuthorizationRequest(as, oauthClient(client), clientAuth(oauth, client), params, { ...requestOptions(oauth, http, p.signal), ...dpopOption(prover) });
      return oauth.processPushedAuthorizationResponse(as, oauthClient(client), res);
    }),
  );
  checkRequestUri(as, pushed.request_uri);
  const url = new URL(String(as.authorization_endpoint));
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('request_uri', pushed.request_uri);
  return { url: url.toString(), expiresIn: pushed.expires_in };
}
