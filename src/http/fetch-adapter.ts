import { CliError } from '../errors.js';
import { type HttpClient, type HttpResponse, MAX_BYTES } from './client.js';
import { BufferedResponse, NULL_BODY_STATUS } from './web-types.js';

export type CustomFetch = (
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string | URLSearchParams | null; signal?: AbortSignal; redirect?: string },
) => Promise<BufferedResponse>;

/**
 * The longest one protocol exchange may take, answer included. The client's own timeout counts idle
 * time only: a server trickling a byte every few seconds would otherwise hold `login`, `token` or
 * `logout` for ever.
 */
const PROTOCOL_DEADLINE_MS = 60_000;

/**
 * Lets oauth4webapi send its requests through our HTTP client (proxy, transport guard, redacted trace).
 * Every protocol answer (metadata, registration, token, revocation) is a small document: capped at
 * 1 MiB, and due within a deadline.
 */
export function fetchFor(http: HttpClient, timeoutMs?: number, maxBytes: number = MAX_BYTES.protocol, deadlineMs: number = Math.max(PROTOCOL_DEADLINE_MS, 2 * (timeoutMs ?? 0))): CustomFetch {
  return async (url, options) => {
    const headers: Record<string, string> = {};
    if (options.headers) {
      for (const [k, v] of Object.entries(options.headers as Record<string, string> | Headers)) headers[k] = String(v);
      if (typeof (options.headers as unknown as Headers).forEach === 'function') {
        (options.headers as unknown as Headers).forEach((v, k) => {
          headers[k] = v;
        });
      }
    }
    const body = options.body == null ? undefined : String(options.body);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), deadlineMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    let res: HttpResponse;
    try {
      res = await http.request({ method: options.method, url, headers, body, signal, timeoutMs, maxBytes });
    } catch (err) {
      if (deadline.signal.aborted && !options.signal?.aborted) {
        throw new CliError(`No complete answer from ${new URL(url).origin} within ${Math.round(deadlineMs / 1000)} seconds; gave up.`, { code: 'network_error' });
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return new BufferedResponse(NULL_BODY_STATUS.has(res.status) ? null : new Uint8Array(res.body), {
      status: res.status,
      statusText: res.statusText,
      headers: Object.entries(res.headers),
    });
  };
}
