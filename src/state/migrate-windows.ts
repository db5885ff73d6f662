import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../errors.js';
import { readFileIfExists, writeFileAtomic } from './atomic.js';
import { type CredentialBackends, pendingLoginAccount, profileAccount } from './credential-store.js';
import type { Paths } from './paths.js';

/**
 * What an earlier version left in the first of `oldDirs` that has a config goes where Windows keeps
 * it now (see resolvePaths): the config, the plain credential file and the keychain entries, whose
 * account names include the config dir. Nothing happens once the new place has a config.
 */
export async function migrateWindowsConfig(paths: Paths, oldDirs: readonly string[], backends: CredentialBackends, notify: (text: string) => void): Promise<void> {
  if (existsSync(paths.configFile)) return;
  const oldDir = oldDirs.find((dir) => dir !== paths.configDir && existsSync(join(dir, 'config.json')));
  if (!oldDir) return;
  const configText = await readFileIfExists(join(oldDir, 'config.json'));
  if (configText === undefined) return;
  let profiles: Record<string, { storage?: string }> = {};
  try {
    profiles = (JSON.parse(configText) as { profiles?: Record<string, { storage?: string }> }).profiles ?? {};
  } catch {
    return; // a damaged config is left where it is, for the commands to report
  }
  // The keychain's and the file's account names include the config dir: renamed with it.
  const renames = Object.keys(profiles).flatMap((name) => [
    [profileAccount(oldDir, name), profileAccount(paths.configDir, name)],
    [pendingLoginAccount(oldDir, name), pendingLoginAccount(paths.configDir, name)],
  ]);
  const credentialsText = await readFileIfExists(join(oldDir, 'credentials.json'));
  if (credentialsText !== undefined) {
    try {
      const shape = JSON.parse(credentialsText) as { version: 1; entries: Record<string, string> };
      for (const [from, to] of renames) {
        if (Object.hasOwn(shape.entries, from)) {
          shape.entries[to] = shape.entries[from];
          delete shape.entries[from];
        }
      }
      await writeFileAtomic(paths.credentialsFile, `${JSON.stringify(shape, null, 2)}\n`, 0o600);
    } catch {
      await writeFileAtomic(paths.credentialsFile, credentialsText, 0o600);
    }
  }
  if (Object.values(profiles).some((p) => p.storage === 'keychain')) {
    try {
      const keychain = await backends.keychain.open('login');
      for (const [from, to] of renames) {
        const secret = await keychain.get(from);
        if (secret === null) continue;
        await keychain.set(to, secret);
        await keychain.delete(from);
      }
    } catch (err) {
      notify(`Could not move the keychain entries of ${oldDir} (${messageOf(err)}); log in again where tokens are missing.\n`);
    }
  }
  await writeFileAtomic(paths.configFile, configText, 0o600);
  // The old file is kept, renamed, so that nothing reads it as current again.
  try {
    renameSync(join(oldDir, 'config.json'), join(oldDir, 'config.json.moved'));
  } catch {
    // read-only or locked: the new place is used all the same, since it now exists
  }
  notify(`Moved the configuration from ${oldDir} to ${paths.configDir}, where school keeps it on Windows.\n`);
}
