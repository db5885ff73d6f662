import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { requireCommonJs } from './require.js';

/**
 * Runs `fn` while holding a named lock shared by every `school` process on this machine.
 * Used so that a rotating refresh token is spent by one process only, and so that
 * read-modify-write of shared files never interleaves.
 */
export async function withLock<T>(lockDir: string, name: string, fn: () => Promise<T>, waitMs = 30_000): Promise<T> {
  const lockfile = requireCommonJs('proper-lockfile') as typeof import('proper-lockfile');
  await fs.mkdir(lockDir, { recursive: true, mode: 0o700 });
  const target = join(lockDir, name.replace(/[^A-Za-z0-9._-]/g, '_'));
  const retries = Math.ceil(waitMs / 100);
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      // A holder that died leaves its lock behind; it counts as stale once not refreshed for this long.
      stale: 10_000,
      update: 2_000,
      retries: { retries, factor: 1, minTimeout: 50, maxTimeout: 100, randomize: true },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new CliError(`Another school process held the lock "${name}" for more than ${Math.round(waitMs / 1000)} seconds.`, {
        code: 'lock_timeout',
        hint: `If no other school process is running, remove ${target}.lock`,
      });
    }
    throw err;
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
