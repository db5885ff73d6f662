import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError } from '../errors.js';
import { readFileIfExists, writeFileAtomic } from './atomic.js';
import type { CredentialStore } from './credential-store.js';
import { withLock } from './lock.js';
import { checkPrivatePath } from './permissions.js';
import { loginCommandText } from '../util/login-command.js';

interface FileShape {
  version: 1;
  entries: Record<string, string>;
}

async function readEntries(path: string): Promise<FileShape> {
  // Like ssh with its keys: a credential file (or its dir) another user owns or can read is not used as it is.
  await checkPrivatePath(dirname(path), 'directory');
  await checkPrivatePath(path, 'file');
  const text = await readFileIfExists(path);
  if (text === undefined) return { version: 1, entries: {} };
  try {
    const parsed = JSON.parse(text) as FileShape;
    if (!parsed || typeof parsed.entries !== 'object') throw new Error('no entries');
    return parsed;
  } catch {
    throw new CliError(`The credential file ${path} is corrupted.`, {
      code: 'corrupt_credential_file',
      hint: `Move it aside and run \`${loginCommandText()}\` again.`,
    });
  }
}

/**
 * Secrets in a plain JSON file readable by this user only (mode 0600). It is not encrypted:
 * whoever can read the file can use the tokens, and the CLI says so when it falls back to it.
 */
export function openFileStore(path: string, lockDir: string): CredentialStore {
  const update = (fn: (entries: Record<string, string>) => boolean) =>
    withLock(lockDir, 'credentials-file', undefined, async () => {
      const shape = await readEntries(path);
      const changed = fn(shape.entries);
      // A file left with no secret is removed rather than kept empty: a login that stored nothing
      // (it failed, or timed out after its verifier was kept here) leaves no credential file behind.
      if (changed && !Object.keys(shape.entries).length) rmSync(path, { force: true });
      else if (changed) await writeFileAtomic(path, `${JSON.stringify(shape, null, 2)}\n`, 0o600);
      return changed;
    });
  return {
    kind: 'file',
    location: path,
    async get(account) {
      const shape = await readEntries(path);
      return shape.entries[account] ?? null;
    },
    async set(account, secret) {
      await update((entries) => {
        entries[account] = secret;
        return true;
      });
    },
    async delete(account) {
      return update((entries) => {
        if (!(account in entries)) return false;
        delete entries[account];
        return true;
      });
    },
  };
}
