import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { CliError, errnoCode } from '../errors.js';
import type { Paths } from './paths.js';

/**
 * The config, state and cache dirs and the files in them are checked the way ssh checks `~/.ssh`:
 * another local user who can write there could point a profile at another origin (and receive the
 * token), plant server metadata, or read the credential file.
 *
 * - owned by another user (root excepted): refused, naming the path and the `chown` that fixes it;
 * - ours but open to others: repaired (dirs 700, files 600), said once on stderr.
 */

export type PermissionReporter = (message: string) => void;

const defaultReporter: PermissionReporter = (message) => process.stderr.write(`${message}\n`);

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

function foreignOwner(path: string, kind: 'directory' | 'file', owner: number): CliError {
  return new CliError(`The ${kind} ${path} belongs to another user (uid ${owner}); refusing to use it.`, {
    code: 'unsafe_permissions',
    hint: `If it is yours, run: chown -R "$(id -un)" ${quoted(path)}; otherwise remove it or point SCHOOL_CONFIG_DIR elsewhere.`,
  });
}

function quoted(path: string): string {
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * Checks one path; absent is fine (it is created private). Returns a note when it was repaired.
 * `mode` is what it must be at most: 0o700 for dirs, 0o600 for files.
 */
export async function checkPrivatePath(path: string, kind: 'directory' | 'file', report: PermissionReporter = defaultReporter): Promise<void> {
  const uid = currentUid();
  if (uid === undefined) return; // no POSIX owners here (Windows): ACLs are the system's business
  let st;
  try {
    // A link someone else planted is theirs, wherever it points.
    const link = await fs.lstat(path);
    if (link.isSymbolicLink() && link.uid !== uid && link.uid !== 0) throw foreignOwner(path, kind, link.uid);
    st = await fs.stat(path);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return;
    throw err;
  }
  if (kind === 'directory' && !st.isDirectory()) {
    throw new CliError(`${path} is not a directory; refusing to use it.`, { code: 'unsafe_permissions', hint: `Move it aside: mv ${quoted(path)} ${quoted(`${path}.bak`)}` });
  }
  if (kind === 'file' && !st.isFile()) {
    throw new CliError(`${path} is not a regular file; refusing to use it.`, { code: 'unsafe_permissions', hint: `Move it aside: mv ${quoted(path)} ${quoted(`${path}.bak`)}` });
  }
  if (st.uid !== uid && st.uid !== 0) throw foreignOwner(path, kind, st.uid);
  const open = st.mode & 0o077;
  if (open === 0) return;
  const wanted = kind === 'directory' ? 0o700 : 0o600;
  const was = (st.mode & 0o777).toString(8).padStart(3, '0');
  if (st.uid !== uid) {
    // root's, and open to others: we cannot repair it.
    throw new CliError(`The ${kind} ${path} is open to other users (mode ${was}); refusing to use it.`, {
      code: 'unsafe_permissions',
      hint: `Run: sudo chmod ${wanted.toString(8)} ${quoted(path)}`,
    });
  }
  // While others could write here, they could have planted something (a profile, server metadata):
  // anything inside that is not ours is refused, and the dir left as it is until someone looks.
  if (kind === 'directory' && open & 0o022) {
    const planted = await foreignEntry(path, uid, 3);
    if (planted) {
      throw new CliError(`The directory ${path} is writable by other users (mode ${was}) and holds ${planted.path}, which belongs to another user (uid ${planted.owner}); refusing to use it.`, {
        code: 'unsafe_permissions',
        hint: `Check and remove what you did not put there, then run: chmod 700 ${quoted(path)}`,
      });
    }
  }
  try {
    await fs.chmod(path, wanted);
  } catch (err) {
    throw new CliError(`The ${kind} ${path} is open to other users (mode ${was}) and could not be made private (${errnoCode(err) ?? 'error'}).`, {
      code: 'unsafe_permissions',
      hint: `Run: chmod ${wanted.toString(8)} ${quoted(path)}`,
    });
  }
  const who = open & 0o022 ? 'writable' : 'readable';
  report(`Note: ${path} was ${who} by other users (mode ${was}); made it private (mode ${wanted.toString(8)}).`);
}

/** The first entry under dir (to a depth) owned by neither us nor root. */
async function foreignEntry(dir: string, uid: number, depth: number): Promise<{ path: string; kind: 'directory' | 'file'; owner: number } | undefined> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return undefined;
  }
  for (const name of names) {
    const path = join(dir, name);
    const st = await fs.lstat(path).catch(() => undefined);
    if (!st) continue;
    if (st.uid !== uid && st.uid !== 0) return { path, kind: st.isDirectory() ? 'directory' : 'file', owner: st.uid };
    if (st.isDirectory() && depth > 1) {
      const found = await foreignEntry(path, uid, depth - 1);
      if (found) return found;
    }
  }
  return undefined;
}

const checked = new Map<string, Promise<void>>();

/** Every place the CLI keeps something, checked once per process (a repair is said once). */
export function checkPrivatePaths(paths: Paths, report: PermissionReporter = defaultReporter): Promise<void> {
  const key = [paths.configDir, paths.stateDir, paths.cacheDir].join('\0');
  let pending = checked.get(key);
  if (!pending) {
    pending = (async () => {
      for (const dir of [paths.configDir, paths.stateDir, paths.cacheDir]) await checkPrivatePath(dir, 'directory', report);
      for (const file of [paths.configFile, paths.credentialsFile, paths.jobCredentialsFile]) await checkPrivatePath(file, 'file', report);
    })();
    checked.set(key, pending);
    // A refusal is not remembered: the user may fix it and the same process (tests) ask again.
    pending.catch(() => checked.delete(key));
  }
  return pending;
}

/** Forgets what was checked (for tests that change permissions between runs in one process). */
export function forgetCheckedPaths(): void {
  checked.clear();
}
