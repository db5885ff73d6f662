import { lstatSync, promises as fs, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, errnoCode } from '../errors.js';
import type { Paths } from './paths.js';

/**
 * The config, state and cache dirs and the files in them are checked the way ssh checks `~/.ssh`:
 * another local user who can write there could point a profile at another origin (and receive the
 * token), plant server metadata, or read the credential file.
 *
 * - owned by another user (root excepted): refused, naming the path and the `chown` that fixes it;
 * - ours but open to others: repaired (dirs 700, files 600), said once through the reporter the
 *   command line registered (`reportRepairsTo`).
 */

export type PermissionReporter = (message: string) => void;

// The state layer writes nothing itself: a repair is said through whatever the command line (or
// doctor, which turns it into a finding) registered; with none registered it goes unsaid.
let repairReporter: PermissionReporter = () => undefined;

/** Where repair notes go from now on; returns the reporter it replaces. */
export function reportRepairsTo(report: PermissionReporter): PermissionReporter {
  const previous = repairReporter;
  repairReporter = report;
  return previous;
}

const registeredReporter: PermissionReporter = (message) => repairReporter(message);

function currentUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Who the paths must belong to (`uid`; undefined where there are no POSIX owners) and whose a path
 * is: the system's answer, or one a test plays, so that the checks are proved as any user.
 */
export interface Owners {
  uid: number | undefined;
  of(path: string, stats: { uid: number }): number;
}

function systemOwners(uid: number | undefined = currentUid()): Owners {
  return { uid, of: (_path, stats) => stats.uid };
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

/** What a path is, as the checks see it (nothing is changed). */
export type PathVerdict =
  /** No POSIX owners here (Windows): ACLs are the system's business. */
  | { state: 'unchecked' }
  | { state: 'absent' }
  | { state: 'wrong_kind' }
  /** Owned by another user than us or root (for a symbolic link: the link itself). */
  | { state: 'foreign'; owner: number }
  | { state: 'private'; mode: number }
  /** Readable or writable by others; `mine` is false for root's. */
  | { state: 'open'; mode: number; mine: boolean };

/**
 * Looks at one path the way `checkPrivatePath` judges it, without changing anything. `owners.uid`
 * is the user the path must belong to (or root): this process's, or another for a test to play.
 */
export async function inspectPrivatePath(path: string, kind: 'directory' | 'file', owners: Owners = systemOwners()): Promise<PathVerdict> {
  const { uid } = owners;
  if (uid === undefined) return { state: 'unchecked' };
  let st;
  try {
    // Synchronous: every run checks six paths, and the promise API's first use loads a dozen
    // modules (streams, readline) that `school token` needs for nothing else.
    // A link someone else planted is theirs, wherever it points.
    const link = lstatSync(path);
    const linkOwner = owners.of(path, link);
    if (link.isSymbolicLink() && linkOwner !== uid && linkOwner !== 0) return { state: 'foreign', owner: linkOwner };
    st = statSync(path);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return { state: 'absent' };
    throw err;
  }
  if (kind === 'directory' ? !st.isDirectory() : !st.isFile()) return { state: 'wrong_kind' };
  const owner = owners.of(path, st);
  if (owner !== uid && owner !== 0) return { state: 'foreign', owner };
  const mode = st.mode & 0o777;
  return mode & 0o077 ? { state: 'open', mode, mine: owner === uid } : { state: 'private', mode };
}

/**
 * Checks one path; absent is fine (it is created private). A repair is said through `report`.
 * The mode must be at most 0o700 for dirs, 0o600 for files; the path must belong to `owner` or root.
 */
export async function checkPrivatePath(path: string, kind: 'directory' | 'file', report: PermissionReporter = registeredReporter, owners: Owners = systemOwners()): Promise<void> {
  const verdict = await inspectPrivatePath(path, kind, owners);
  if (verdict.state === 'unchecked' || verdict.state === 'absent' || verdict.state === 'private') return;
  if (verdict.state === 'wrong_kind') {
    throw new CliError(`${path} is not ${kind === 'directory' ? 'a directory' : 'a regular file'}; refusing to use it.`, {
      code: 'unsafe_permissions',
      hint: `Move it aside: mv ${quoted(path)} ${quoted(`${path}.bak`)}`,
    });
  }
  if (verdict.state === 'foreign') throw foreignOwner(path, kind, verdict.owner);
  const { mode } = verdict;
  const open = mode & 0o077;
  const wanted = kind === 'directory' ? 0o700 : 0o600;
  const was = mode.toString(8).padStart(3, '0');
  if (!verdict.mine) {
    // root's, and open to others: we cannot repair it.
    throw new CliError(`The ${kind} ${path} is open to other users (mode ${was}); refusing to use it.`, {
      code: 'unsafe_permissions',
      hint: `sudo chmod ${wanted.toString(8)} ${quoted(path)}`,
    });
  }
  // While others could write here, they could have planted something (a profile, server metadata):
  // anything inside that is not ours is refused, and the dir left as it is until someone looks.
  if (kind === 'directory' && open & 0o022) {
    const planted = await foreignEntry(path, owners, 3);
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
      hint: `chmod ${wanted.toString(8)} ${quoted(path)}`,
    });
  }
  const who = open & 0o022 ? 'writable' : 'readable';
  report(`Note: ${path} was ${who} by other users (mode ${was}); made it private (mode ${wanted.toString(8)}).`);
}

/** The first entry under dir (to a depth) owned by neither us nor root. */
async function foreignEntry(dir: string, owners: Owners, depth: number): Promise<{ path: string; kind: 'directory' | 'file'; owner: number } | undefined> {
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
    const owner = owners.of(path, st);
    if (owner !== owners.uid && owner !== 0) return { path, kind: st.isDirectory() ? 'directory' : 'file', owner };
    if (st.isDirectory() && depth > 1) {
      const found = await foreignEntry(path, owners, depth - 1);
      if (found) return found;
    }
  }
  return undefined;
}

const checked = new Map<string, Promise<void>>();

/** Every place the CLI keeps something, checked once per process (a repair is said once). */
export function checkPrivatePaths(paths: Paths, report: PermissionReporter = registeredReporter): Promise<void> {
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
