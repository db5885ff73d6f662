import type * as OAuthModule from 'oauth4webapi';
import type { HttpClient } from '../http/client.js';
import { fetchFor } from '../http/fetch-adapter.js';
import type { BufferedResponse } from '../http/web-types.js';
import { importPackage, requireCommonJs } from '../util/require.js';

export type OAuth = typeof OAuthModule;
export type { AuthorizationServer } from '../types/server.js';

// The installed build's own copy of oauth4webapi, beside dist/cli.cjs (see scripts/build.mjs and
// oauth4webapi-globals.ts), or undefined when the sources run unbuilt and import the package itself.
declare const __SCHOOL_OAUTH_BUNDLE__: string;
const OAUTH_BUNDLE: string | undefined = typeof __SCHOOL_OAUTH_BUNDLE__ === 'undefined' ? undefined : __SCHOOL_OAUTH_BUNDLE__;

let loading: Promise<OAuth> | undefined;

/**
 * oauth4webapi is loaded only by commands that speak the protocol, to keep `school token` fast.
 * The build's copy is CommonJS: require() spares the refresh of `school token` the start of the
 * ES module loader.
 */
export function loadOAuth(): Promise<OAuth> {
  loading ??= OAUTH_BUNDLE === undefined ? importPackage<OAuth>('oauth4webapi') : Promise.resolve(requireCommonJs(OAUTH_BUNDLE) as OAuth);
  return loading;
}

/**
 * A response of ours as the standard Response oauth4webapi's types name: it implements what the
 * library reads of one (http/web-types.ts), and the library checks it by its tag, not its class.
 */
export function asStandardResponse(response: BufferedResponse): Response {
  return response as unknown as Response;
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
