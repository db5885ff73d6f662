import { type HttpClient, MAX_BYTES } from './client.js';

export type CustomFetch = (
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string | URLSearchParams | null; signal?: AbortSignal; redirect?: string },
) => Promise<Response>;

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * Lets oauth4webapi send its requests through our HTTP client (proxy, transport guard, redacted trace).
 * Every protocol answer (metadata, registration, token, revocation) is a small document: capped at 1 MiB.
 */
export function fetchFor(http: HttpClient, timeoutMs?: number, maxBytes: number = MAX_BYTES.protocol): CustomFetch {
  return async (url, options) => {
    const headers: Record<string, string> = {};
    if (options.headers) {
      for (const [k, v] of Object.entries(options.headers as Record<string, string> | Headers)) headers[k] = String(v);
      if (typeof (options.headers as unknown as Headers).forEach === 'function') {
        (options.headers as unknown as Headers).forEach((v, k) => (headers[k] = v));
      }
    }
    const body = options.body == null ? undefined : String(options.body);
    const res = await http.request({ method: options.method, url, headers, body, signal: options.signal, timeoutMs, maxBytes });
    return new Response(NULL_BODY_STATUS.has(res.status) ? null : new Uint8Array(res.body), {
      status: res.status,
      statusText: res.statusText,
      headers: Object.entries(res.headers),
    });
  };
}
