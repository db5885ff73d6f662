import { CliError } from '../errors.js';

export interface Deadline {
  /** Aborts when the deadline passes or when `parent` aborts (Ctrl-C). */
  signal: AbortSignal;
  expired(): boolean;
  /** Milliseconds left before it passes. */
  remainingMs(): number;
  /** The error to report once the deadline has passed. */
  error(): CliError;
  dispose(): void;
}

/**
 * A deadline for one whole request, from sending it to the last byte of its body, its retries and
 * their waits included. The HTTP client's own timeout restarts with every chunk, so a body
 * trickling a byte every few seconds would never trip it; this one does not restart.
 */
export function startDeadline(seconds: number, parent: AbortSignal): Deadline {
  const controller = new AbortController();
  const endsAt = Date.now() + seconds * 1000;
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, seconds * 1000);
  const onParentAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onParentAbort();
  else parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    expired: () => expired,
    remainingMs: () => Math.max(0, endsAt - Date.now()),
    error: () => new CliError(`The request did not complete within ${seconds} s.`, { code: 'timeout' }),
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}
