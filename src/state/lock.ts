import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, errnoCode, InterruptedError } from '../errors.js';
import { retryingTransient } from '../platform/transient-errors.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A holder that died leaves its lock behind; it counts as stale once not refreshed for this long. */
const STALE_MS = 10_000;
/** How often a holder refreshes its lock, well inside STALE_MS. */
const REFRESH_MS = 2_000;

/**
 * The file calls the lock makes, one system call each, so that a test can run two waiters'
 * steps in any interleaving it chooses (see test/unit/lock.test.ts).
 */
export interface LockFiles {
  mkdir(path: string): void;
  rename(from: string, to: string): void;
  readdir(path: string): string[];
  mtimeMs(path: string): number;
  writeFile(path: string, data: string): void;
  unlink(path: string): void;
  rmdir(path: string): void;
  touch(path: string, when: Date): void;
  removeTree(path: string): void;
}

export const systemLockFiles: LockFiles = {
  mkdir: (path) => mkdirSync(path),
  rename: (from, to) => renameSync(from, to),
  readdir: (path) => readdirSync(path),
  mtimeMs: (path) => statSync(path).mtimeMs,
  writeFile: (path, data) => writeFileSync(path, data, { flag: 'wx', mode: 0o600 }),
  unlink: (path) => unlinkSync(path),
  rmdir: (path) => rmdirSync(path),
  touch: (path, when) => utimesSync(path, when, when),
  removeTree: (path) => rmSync(path, { recursive: true, force: true }),
};

/**
 * The file calls as used on `platform`: on Windows, creating, removing and emptying retry the
 * moment a virus scanner holds the file (a release that failed would leave the lock to go stale).
 * The rename that takes a lock is not retried: there, EPERM also means that the lock stands, and
 * the next look tells which.
 */
export function lockFilesFor(platform: NodeJS.Platform, files: LockFiles = systemLockFiles, pause?: (ms: number) => void): LockFiles {
  if (platform !== 'win32') return files;
  const retrying =
    <A extends unknown[]>(step: (...args: A) => void) =>
    (...args: A) =>
      retryingTransient(platform, () => step(...args), pause);
  return {
    ...files,
    mkdir: retrying(files.mkdir),
    writeFile: retrying(files.writeFile),
    unlink: retrying(files.unlink),
    rmdir: retrying(files.rmdir),
    removeTree: retrying(files.removeTree),
  };
}

/** Locks this process holds, removed if it exits while holding them (a crash leaves them to go stale). */
const held = new Map<string, string>();
let removesOnExit = false;
let ownerCounter = 0;

function removeHeldOnExit(): void {
  if (removesOnExit) return;
  removesOnExit = true;
  process.once('exit', () => {
    for (const [path, owner] of held) releaseLock(path, owner, lockFilesFor(process.platform));
  });
}

/** A name no other attempt, in this process or another, uses: the pid and a counter, plus noise for pid reuse across containers. */
export function newLockOwner(): string {
  return `${process.pid}-${(ownerCounter++).toString(36)}-${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
}

/**
 * Errors of a rename onto a lock that stands: a lock dir always holds its owner's file, and a
 * rename never replaces a non-empty dir (ENOTEMPTY or EEXIST; Windows refuses any dir with EPERM
 * or EACCES, which its virus scanners also cause for a moment: the next look tells them apart).
 */
const LOCK_STANDS = new Set(['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY', 'EISDIR']);
/** Errors of a step that another process, or a virus scanner on Windows, got in the way of: look again. */
const LOOK_AGAIN = new Set(['ENOENT', 'ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES', 'EBUSY']);

type Step = 'taken' | 'held' | 'again';

/**
 * Tries to take the lock at `path` for `owner`; true when taken. A lock is a directory holding
 * one empty file named after its owner, whose mtime the owner keeps fresh. It appears whole:
 * the owner prepares `<path>.<owner>` with its file inside and renames it to `path`, which
 * succeeds for one process only, since a rename never replaces a non-empty dir.
 *
 * A dead holder's lock goes stale. Taking it over must be won by one waiter only, even when two
 * waiters saw the same old mtime: the step that decides is unlinking the dead holder's own file,
 * `path/<dead owner>`, which succeeds once; the one that succeeds empties the dir and takes it as
 * above. A waiter that acts late on what it saw (the lock has a new owner since) finds that file
 * gone and waits: it never removes a lock by its path alone. An empty lock dir is a takeover in
 * progress while fresh, left over once stale.
 *
 * Synchronous file calls, here and in atomic.ts: each is one quick system call, and the promise
 * API would load its modules and start libuv's thread pool for a refresh that needs neither.
 */
export function tryAcquire(path: string, owner: string, files: LockFiles = systemLockFiles, now = Date.now()): boolean {
  const prepared = `${path}.${owner}`;
  for (let attempt = 0; attempt < 4; attempt++) {
    const step = tryAcquireStep(path, prepared, owner, files, now);
    if (step === 'taken') return true;
    if (step === 'held') break;
  }
  // A lock not taken leaves its prepared dir behind (a taken one was moved into place).
  files.removeTree(prepared);
  return false;
}

function tryAcquireStep(path: string, prepared: string, owner: string, files: LockFiles, now: number): Step {
  let entries: string[];
  try {
    entries = files.readdir(path);
  } catch (err) {
    if (errnoCode(err) !== 'ENOENT') throw err;
    // Free: a rename would replace an empty dir on Linux, so it is made only where none stood.
    try {
      files.mkdir(prepared);
      files.writeFile(join(prepared, owner), '');
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err; // prepared by an earlier attempt
    }
    try {
      files.rename(prepared, path);
      return 'taken';
    } catch (err) {
      if (LOCK_STANDS.has(errnoCode(err) ?? '')) return 'again'; // taken in between: look at it
      throw err;
    }
  }
  const stale = (entry?: string) => {
    try {
      return now - files.mtimeMs(entry === undefined ? path : join(path, entry)) > STALE_MS;
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return undefined; // changed while looked at
      throw err;
    }
  };
  if (entries.length === 0) {
    const left = stale();
    if (left === false) return 'held';
    if (left) removeIfStill(() => files.rmdir(path));
    return 'again';
  }
  for (const entry of entries) {
    const left = stale(entry);
    if (left === undefined) return 'again';
    if (!left) return 'held';
  }
  // Every owner's file is stale: whoever unlinks the first one has the takeover; a late waiter finds it gone.
  try {
    files.unlink(join(path, entries[0]));
  } catch (err) {
    if (LOOK_AGAIN.has(errnoCode(err) ?? '')) return 'held';
    throw err;
  }
  for (const entry of entries.slice(1)) removeIfStill(() => files.unlink(join(path, entry)));
  // Windows cannot rename onto an empty dir, so it goes first; elsewhere this only saves a step.
  removeIfStill(() => files.rmdir(path));
  return 'again';
}

/** Runs a removal that another process may have made already, or made pointless by taking the lock. */
function removeIfStill(remove: () => void): void {
  try {
    remove();
  } catch (err) {
    if (!LOOK_AGAIN.has(errnoCode(err) ?? '')) throw err;
  }
}

/**
 * Lets go of the lock at `path` if `owner` still holds it: its own file first, then the dir
 * if empty. A holder that was taken over as stale (a suspended laptop) finds its file gone and
 * leaves the new owner's lock alone.
 */
export function releaseLock(path: string, owner: string, files: LockFiles = systemLockFiles): void {
  try {
    files.unlink(join(path, owner));
  } catch {
    return; // not ours any more, or already gone
  }
  try {
    files.rmdir(path);
  } catch {
    // another owner's lock stands there already
  }
}

/**
 * Runs `fn` while holding a named lock shared by every `school` process on this machine.
 * Used so that a rotating refresh token is spent by one process only, and so that
 * read-modify-write of shared files never interleaves. Waiting can be interrupted (nothing is
 * spent yet); once held, `fn` runs to its end.
 */
export async function withLock<T>(lockDir: string, name: string, signal: AbortSignal | undefined, fn: () => Promise<T>, waitMs = 30_000, platform: NodeJS.Platform = process.platform): Promise<T> {
  const files = lockFilesFor(platform);
  mkdirSync(lockDir, { recursive: true, mode: 0o700 });
  const target = join(lockDir, name.replace(/[^A-Za-z0-9._-]/g, '_'));
  const path = `${target}.lock`;
  const owner = newLockOwner();
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (signal?.aborted) throw new InterruptedError();
    if (tryAcquire(path, owner, files)) break;
    if (Date.now() > deadline) {
      throw new CliError(`Another school process held the lock "${name}" for more than ${Math.round(waitMs / 1000)} seconds.`, {
        code: 'lock_timeout',
        hint: `If no other school process is running, remove ${path}`,
      });
    }
    await sleep(40 + Math.random() * 60);
  }
  held.set(path, owner);
  removeHeldOnExit();
  // Keeps the lock fresh while `fn` runs, so that a long refresh is not taken for a dead holder.
  const keepFresh = setInterval(() => {
    const now = new Date();
    try {
      systemLockFiles.touch(join(path, owner), now);
    } catch {
      // taken over or gone: nothing to keep fresh
    }
  }, REFRESH_MS);
  keepFresh.unref();
  try {
    return await fn();
  } finally {
    clearInterval(keepFresh);
    held.delete(path);
    releaseLock(path, owner, files);
  }
}
