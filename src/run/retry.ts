/** A server that asks for a longer wait than this is not waited for longer. */
const MAX_RETRY_DELAY_MS = 60_000;
/** How many times an idempotent request is retried when the user did not say. */
const DEFAULT_RETRIES = 3;
/** Statuses that say "try again later": too many requests, service unavailable. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The delay a `Retry-After` value asks for, in milliseconds (RFC 9110 §10.2.3): delay-seconds or an
 * HTTP date; capped at 60 s; a date in the past means now. Anything else is undefined.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_DELAY_MS);
  // Only the date forms: Date.parse alone would accept "1" or "soon 2".
  if (!/^[A-Za-z]{3},? .*\d{2}:\d{2}:\d{2} GMT$|^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$|^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/.test(text)) {
    return undefined;
  }
  const at = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_DELAY_MS);
}

/** A short exponential back-off when the server gave no usable Retry-After: 1 s, 2 s, 4 s… */
export function backoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
}

/**
 * How many retries a request gets: GET and HEAD three by default; other methods none, since
 * repeating a POST may do its work twice, unless the user asked with `--retry <n>`, which sets
 * the count for any method.
 */
export function retriesAllowed(method: string, explicit: number | undefined): number {
  if (explicit !== undefined) return explicit;
  return SAFE_METHODS.has(method.toUpperCase()) ? DEFAULT_RETRIES : 0;
}

export interface RetryDecision {
  delayMs: number;
  /** The sentence shown on stderr before waiting. */
  notice: string;
}

/** Whether the answer to attempt `attempt` (1 = the first retry to come) is retried, and after how long. */
export function retryDecision(status: number, retryAfter: string | undefined, attempt: number, maxRetries: number, nowMs: number): RetryDecision | undefined {
  if (!RETRYABLE_STATUSES.has(status) || attempt > maxRetries) return undefined;
  const delayMs = parseRetryAfter(retryAfter, nowMs) ?? backoffMs(attempt);
  return { delayMs, notice: `Retrying in ${formatDelay(delayMs)} (HTTP ${status}, attempt ${attempt} of ${maxRetries})…` };
}

function formatDelay(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
