import { errnoCode } from '../errors.js';

/**
 * On Windows a virus scanner, the search indexer or a backup tool opens files it sees change, and
 * for that moment renaming, removing or replacing them fails with EPERM, EACCES or EBUSY. Elsewhere
 * those errors mean what they say and are not retried.
 */
const TRANSIENT_ON_WINDOWS = new Set(['EPERM', 'EACCES', 'EBUSY']);
/** About 1.3 s in all: longer than a scanner holds a small file, short enough for a person waiting. */
const PAUSES_MS = [10, 20, 40, 80, 160, 320, 640];

/** Blocks the thread (the file calls around it are synchronous too, see state/atomic.ts). */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs a file step, again after a short pause while it fails the way Windows fails for a moment. */
export function retryingTransient<T>(platform: NodeJS.Platform, step: () => T, pause: (ms: number) => void = pauseSync): T {
  for (let attempt = 0; ; attempt++) {
    try {
      return step();
    } catch (err) {
      if (platform !== 'win32' || !TRANSIENT_ON_WINDOWS.has(errnoCode(err) ?? '') || attempt >= PAUSES_MS.length) throw err;
      pause(PAUSES_MS[attempt]);
    }
  }
}
