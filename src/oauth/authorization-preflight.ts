import { type HttpClient, MAX_BYTES } from '../http/client.js';

/** How the authorization endpoint took a request: refused outright, taken, or no telling (a network fault, a 5xx). */
export type PreflightVerdict = 'refused' | 'accepted' | 'unknown';

const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

/**
 * Whether the authorization endpoint refuses a saved client before a person is sent there: one
 * GET of the authorization URL, as the browser will send it, redirects not followed. A server
 * must not redirect when the client or its redirect URI is unknown (RFC 6749 §4.1.2.1): it shows
 * its own error page, a 4xx; a client it knows gets its sign-in page or a redirect to it. No
 * grant is attempted and no code exists yet, so the server logs no failure for a known client.
 */
export async function authorizationPreflight(http: HttpClient, authorizationUrl: string, redirectUri: string, signal?: AbortSignal): Promise<PreflightVerdict> {
  let res;
  try {
    res = await http.request({ url: authorizationUrl, headers: { accept: 'text/html' }, signal, timeoutMs: 10_000, maxBytes: MAX_BYTES.protocol });
  } catch {
    return 'unknown'; // the browser finds out; nothing is lost by going on
  }
  if (res.status === 400 || res.status === 401) return 'refused';
  if (res.status >= 300 && res.status < 400 && res.headers.location) {
    // A server that does send the client back with its refusal (RFC 6749 §4.1.2.1 allows it for unauthorized_client).
    const back = new URL(res.headers.location, authorizationUrl);
    const error = back.searchParams.get('error');
    if (back.href.startsWith(redirectUri) && error && CLIENT_ERRORS.has(error)) return 'refused';
  }
  return res.status < 500 ? 'accepted' : 'unknown';
}
