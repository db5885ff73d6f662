import { errnoCode } from '../errors.js';
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { retryingTransient } from '../platform/transient-errors.js';

/** What a test can set: the platform whose rules apply, and the rename and pause it watches. */
export interface AtomicWriteOptions {
  platform?: NodeJS.Platform;
  rename?: (from: string, to: string) => void;
  pause?: (ms: number) => void;
  /**
   * False for a cache: still replaced in one step, but not flushed to disk first. A cache lost in
   * a crash costs a request; a 13 MB description flushed on every fetch costs its reader time.
   */
  durable?: boolean;
}

let tmpCounter = 0;

/**
 * Creates a new temporary file beside `path`, exclusively ('wx'): a name already taken (another
 * process of the same pid, in another container sharing the directory) is never overwritten, and
 * another name is tried. Names need not be unguessable: the directory is the user's own, 0700.
 * Not from node:crypto, whose loading would cost a refresh more than the write itself.
 */
function createTemporary(path: string, mode: number): { tmp: string; fd: number } {
  for (let attempt = 0; ; attempt++) {
    const unique = `${(tmpCounter++).toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${unique}.tmp`);
    try {
      return { tmp, fd: openSync(tmp, 'wx', mode) };
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST' || attempt >= 4) throw err;
    }
  }
}

/**
 * Replaces a file in one step: readers see the old or the new content, never a torn write, and
 * the content is on disk (fsync) before it replaces the old. The temporary file is created with
 * the final mode, so a secret is never briefly world-readable. Synchronous calls, as in lock.ts:
 * the files are small, and the promise API would load its modules and start libuv's thread pool
 * on a refresh that needs neither.
 */
export async function writeFileAtomic(path: string, data: string | readonly (string | Uint8Array)[], mode = 0o600, options: AtomicWriteOptions = {}): Promise<void> {
  const platform = options.platform ?? process.platform;
  const rename = options.rename ?? renameSync;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const { tmp, fd } = createTemporary(path, mode);
  try {
    try {
      // Parts are written one after the other: a large file made of pieces is never joined in memory first.
      for (const part of typeof data === 'string' ? [data] : data) writeFileSync(fd, part);
      if (options.durable !== false) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(tmp, mode); // umask may have narrowed or the file system widened it
    // A failed replace after a refresh would lose the rotated token: retried while Windows holds the file for a moment.
    retryingTransient(platform, () => rename(tmp, path), options.pause);
  } catch (err) {
    retryingTransient(platform, () => rmSync(tmp, { force: true }), options.pause);
    throw err;
  }
}

/**
 * The file's text, or undefined when there is none. Read synchronously: the files are small, and
 * the promise API's first use loads a dozen modules (streams, readline) that `school token` needs
 * for nothing else.
 */
export async function readFileIfExists(path: string): Promise<string | undefined> {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}
