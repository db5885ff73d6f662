import type * as OAuthModule from 'oauth4webapi';
import type { HttpClient } from '../http/client.js';
import { fetchFor } from '../http/fetch-adapter.js';

export type OAuth = typeof OAuthModule;
export type AuthorizationServer = OAuthModule.AuthorizationServer;

let loading: Promise<OAuth> | undefined;

/** oauth4webapi is loaded only by commands that speak the protocol, to keep `school token` fast. */
export function loadOAuth(): Promise<OAuth> {
  loading ??= import('oauth4webapi');
  return loading;
}

/**
 * Request options for every oauth4webapi call: requests go through our HTTP client, which already
 * refuses http:// to anything but loopback, so oauth4webapi's own https-only check can stand aside.
 */
export function requestOptions(oauth: OAuth, http: HttpClient, signal?: AbortSignal, timeoutMs?: number) {
  return {
    [oauth.customFetch]: fetchFor(http, timeoutMs) as unknown as typeof fetch,
    [oauth.allowInsecureRequests]: true,
    signal,
  };
}
