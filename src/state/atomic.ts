import { errnoCode } from '../errors.js';
import { promises as fs, readFileSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

/**
 * Replaces a file in one step: readers see the old or the new content, never a torn write.
 * The temporary file is created with the final mode, so a secret is never briefly world-readable.
 */
let tmpCounter = 0;

export async function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // Unique enough with the pid, and created exclusively ('wx'): a clash fails, it never overwrites.
  // Not from node:crypto, whose loading would cost a refresh more than the write itself.
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${(tmpCounter++).toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`);
  const handle = await fs.open(tmp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.chmod(tmp, mode); // umask may have narrowed or the file system widened it
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
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
