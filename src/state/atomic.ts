import { errnoCode } from '../errors.js';
import { promises as fs, readFileSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

let tmpCounter = 0;

/**
 * Creates a new temporary file beside `path`, exclusively ('wx'): a name already taken (another
 * process of the same pid, in another container sharing the directory) is never overwritten, and
 * another name is tried. Names need not be unguessable: the directory is the user's own, 0700.
 * Not from node:crypto, whose loading would cost a refresh more than the write itself.
 */
async function createTemporary(path: string, mode: number): Promise<{ tmp: string; handle: fs.FileHandle }> {
  for (let attempt = 0; ; attempt++) {
    const unique = `${(tmpCounter++).toString(36)}${Math.floor(Math.random() * 2 ** 32).toString(36)}`;
    const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${unique}.tmp`);
    try {
      return { tmp, handle: await fs.open(tmp, 'wx', mode) };
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST' || attempt >= 4) throw err;
    }
  }
}

/**
 * Replaces a file in one step: readers see the old or the new content, never a torn write.
 * The temporary file is created with the final mode, so a secret is never briefly world-readable.
 */
export async function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  await fs.mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const { tmp, handle } = await createTemporary(path, mode);
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
