/**
 * Refreshes that have been sent and whose answer is not stored yet. Stopping the process then
 * would lose a rotated session (the server has spent the old refresh token), so the CLI's signal
 * handling waits for them; each is bounded by the refresh's own timeout.
 */
let inFlight = 0;

/** Runs a sent refresh up to the moment its answer is stored (or it failed). */
export async function whileRefreshInFlight<T>(work: () => Promise<T>): Promise<T> {
  inFlight += 1;
  try {
    return await work();
  } finally {
    inFlight -= 1;
  }
}

export function refreshInFlight(): boolean {
  return inFlight > 0;
}
