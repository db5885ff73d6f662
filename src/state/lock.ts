import { mkdirSync, rmdirSync, rmSync, statSync, utimes } from 'node:fs';
import { join } from 'node:path';
import { CliError, errnoCode, InterruptedError } from '../errors.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A holder that died leaves its lock behind; it counts as stale once not refreshed for this long. */
const STALE_MS = 10_000;
/** How often a holder refreshes its lock, well inside STALE_MS. */
const REFRESH_MS = 2_000;

/** Locks this process holds, removed if it exits while holding them (a crash leaves them to go stale). */
const held = new Set<string>();
let removesOnExit = false;

function removeHeldOnExit(): void {
  if (removesOnExit) return;
  removesOnExit = true;
  process.once('exit', () => {
    for (const path of held) {
      try {
        rmdirSync(path);
      } catch {
        // already gone: nothing to release
      }
    }
  });
}

/**
 * Takes the lock directory at `path` if it is free or stale. Synchronous file calls, here and in
 * atomic.ts: each is one quick system call, and the promise API would load its modules and start
 * libuv's thread pool for a refresh that needs neither. mkdir is atomic, so of several
 * processes exactly one creates it; the others see EEXIST and wait. The layout (a `<name>.lock`
 * directory whose mtime the holder keeps fresh) is the one proper-lockfile uses.
 */
function tryAcquire(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(path);
      return true;
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
    }
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') continue; // released in between: try again at once
      throw err;
    }
    if (Date.now() - mtimeMs <= STALE_MS) return false;
    rmSync(path, { recursive: true, force: true });
  }
  return false;
}

/**
 * Runs `fn` while holding a named lock shared by every `school` process on this machine.
 * Used so that a rotating refresh token is spent by one process only, and so that
 * read-modify-write of shared files never interleaves. Waiting can be interrupted (nothing is
 * spent yet); once held, `fn` runs to its end.
 */
export async function withLock<T>(lockDir: string, name: string, signal: AbortSignal | undefined, fn: () => Promise<T>, waitMs = 30_000): Promise<T> {
  mkdirSync(lockDir, { recursive: true, mode: 0o700 });
  const target = join(lockDir, name.replace(/[^A-Za-z0-9._-]/g, '_'));
  const path = `${target}.lock`;
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (signal?.aborted) throw new InterruptedError();
    if (tryAcquire(path)) break;
    if (Date.now() > deadline) {
      throw new CliError(`Another school process held the lock "${name}" for more than ${Math.round(waitMs / 1000)} seconds.`, {
        code: 'lock_timeout',
        hint: `If no other school process is running, remove ${path}`,
      });
    }
    await sleep(40 + Math.random() * 60);
  }
  held.add(path);
  removeHeldOnExit();
  // Keeps the lock fresh while `fn` runs, so that a long refresh is not taken for a dead holder.
  const keepFresh = setInterval(() => {
    const now = new Date();
    utimes(path, now, now, () => undefined);
  }, REFRESH_MS);
  keepFresh.unref();
  try {
    return await fn();
  } finally {
    clearInterval(keepFresh);
    held.delete(path);
    try {
      rmdirSync(path);
    } catch {
      // already gone (taken over as stale): nothing to release
    }
  }
}
