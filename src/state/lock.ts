import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { CliError, errnoCode, InterruptedError } from '../errors.js';
import { requireCommonJs } from '../util/require.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` while holding a named lock shared by every `school` process on this machine.
 * Used so that a rotating refresh token is spent by one process only, and so that
 * read-modify-write of shared files never interleaves. Waiting can be interrupted (nothing is
 * spent yet); once held, `fn` runs to its end.
 */
export async function withLock<T>(lockDir: string, name: string, signal: AbortSignal | undefined, fn: () => Promise<T>, waitMs = 30_000): Promise<T> {
  const lockfile = requireCommonJs('proper-lockfile') as typeof import('proper-lockfile');
  await fs.mkdir(lockDir, { recursive: true, mode: 0o700 });
  const target = join(lockDir, name.replace(/[^A-Za-z0-9._-]/g, '_'));
  const deadline = Date.now() + waitMs;
  let release: (() => Promise<void>) | undefined;
  while (!release) {
    if (signal?.aborted) throw new InterruptedError();
    try {
      release = await lockfile.lock(target, {
        realpath: false,
        // A holder that died leaves its lock behind; it counts as stale once not refreshed for this long.
        stale: 10_000,
        update: 2_000,
        retries: 0,
      });
    } catch (err) {
      if (errnoCode(err) !== 'ELOCKED') throw err;
      if (Date.now() > deadline) {
        throw new CliError(`Another school process held the lock "${name}" for more than ${Math.round(waitMs / 1000)} seconds.`, {
          code: 'lock_timeout',
          hint: `If no other school process is running, remove ${target}.lock`,
        });
      }
      await sleep(40 + Math.random() * 60);
    }
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
