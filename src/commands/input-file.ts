/**
 * A file a command line names for its bytes (`--input`, `-F key=@file`, a multipart field's
 * `@path`), `-` for standard input: read whole, or refused in one line that names it. `call` and
 * `school api` read files alike, so they read them here.
 */
// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { promises as fs } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError, errnoCode, messageOf } from '../errors.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
  return Buffer.concat(chunks);
}

/** The bytes of the file `name` (`-`: `stdin`), exactly as they are; a file that cannot be read is a usage error ("ENOENT", or why). */
export async function readNamedFile(name: string, stdin: Readable): Promise<Buffer> {
  try {
    return name === '-' ? await readAll(stdin) : await fs.readFile(name);
  } catch (err) {
    throw new UsageError(`Cannot read ${name}: ${errnoCode(err) ?? messageOf(err)}.`);
  }
}
