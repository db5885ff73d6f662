import { chmod, lchown, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Owners, checkPrivatePath, checkPrivatePaths, forgetCheckedPaths } from '../../src/state/permissions.js';
import { resolvePaths } from '../../src/state/paths.js';
import { CliError } from '../../src/errors.js';
import { openFileStore } from '../../src/state/file-store.js';

let dir: string;
const mode = async (p: string) => (await stat(p)).mode & 0o777;

// The checks are given the user to compare with, so no second real user is needed: they play
// PLAYED_UID, and a path made here belongs to "another user" as long as it is not root's (root's
// paths are trusted by design), so root first gives what it made to a stand-in uid.
const PLAYED_UID = 54321;
/** The user the checks compare with, played; `planted` names paths that belong to someone else. */
const playing = (uid: number, planted: Record<string, number> = {}): Owners => ({ uid, of: (path, stats) => planted[path] ?? stats.uid });
const STAND_IN_UID = 12345;
async function ownedByAnother(path: string): Promise<number> {
  if (process.getuid?.() === 0) await lchown(path, STAND_IN_UID, STAND_IN_UID);
  const owner = (await lstat(path)).uid;
  expect([0, PLAYED_UID]).not.toContain(owner);
  return owner;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'school-perm-'));
  forgetCheckedPaths();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('private dirs and files, checked like ~/.ssh', () => {
  it('accepts what does not exist yet (it is created private)', async () => {
    const notes: string[] = [];
    await checkPrivatePath(join(dir, 'absent'), 'directory', (m) => notes.push(m));
    expect(notes).toEqual([]);
  });

  it('repairs a group- or world-writable dir of ours to 700 and says so once', async () => {
    const config = join(dir, 'config');
    await mkdir(config);
    await chmod(config, 0o777);
    const notes: string[] = [];
    const paths = resolvePaths({ SCHOOL_CONFIG_DIR: config });
    await checkPrivatePaths(paths, (m) => notes.push(m));
    await checkPrivatePaths(paths, (m) => notes.push(m));
    expect(await mode(config)).toBe(0o700);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(config);
    expect(notes[0]).toMatch(/writable by other users \(mode 777\); made it private \(mode 700\)/);
  });

  it('repairs a credential file someone made 0644 to 600 before it is read', async () => {
    const config = join(dir, 'config');
    await mkdir(config, { mode: 0o700 });
    const file = join(config, 'credentials.json');
    await writeFile(file, JSON.stringify({ version: 1, entries: { a: 'secret-value-123' } }));
    await chmod(file, 0o644);
    const notes: string[] = [];
    await checkPrivatePath(file, 'file', (m) => notes.push(m));
    expect(await mode(file)).toBe(0o600);
    expect(notes[0]).toMatch(/readable by other users \(mode 644\)/);
    // The file store itself checks too.
    await chmod(file, 0o640);
    const store = openFileStore(file, join(config, 'locks'));
    expect(await store.get('a')).toBe('secret-value-123');
    expect(await mode(file)).toBe(0o600);
  });

  it('refuses a dir that is not a dir, naming the path and the fix', async () => {
    const config = join(dir, 'config');
    await writeFile(config, 'x');
    const err = await checkPrivatePath(config, 'directory', () => undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).exitCode).toBe(1);
    expect((err as CliError).message).toContain(config);
    expect((err as CliError).hint).toContain('mv ');
  });

  it('refuses a dir or a credential file owned by another user, naming the path and chown', async () => {
    const config = join(dir, 'config');
    await mkdir(config, { mode: 0o700 });
    const owner = await ownedByAnother(config);
    const err = await checkPrivatePath(config, 'directory', () => undefined, playing(PLAYED_UID)).catch((e: unknown) => e);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).message).toBe(`The directory ${config} belongs to another user (uid ${owner}); refusing to use it.`);
    expect((err as CliError).hint).toContain(`chown -R "$(id -un)" '${config}'`);
    const file = join(dir, 'credentials.json');
    await writeFile(file, '{"version":1,"entries":{}}', { mode: 0o600 });
    await ownedByAnother(file);
    await expect(checkPrivatePath(file, 'file', () => undefined, playing(PLAYED_UID))).rejects.toMatchObject({ code: 'unsafe_permissions', message: expect.stringContaining(file) });
    // The same paths pass for the user who owns them.
    await expect(checkPrivatePath(config, 'directory', () => undefined, playing(owner))).resolves.toBeUndefined();
  });

  it("accepts root's dir when it is private, refuses it open to others", async () => {
    // Root's own dirs: one made here when the tests run as root, else root's home (mode 700).
    const rootsPrivateDir = process.getuid?.() === 0 ? join(dir, 'roots') : '/root';
    if (rootsPrivateDir !== '/root') await mkdir(rootsPrivateDir, { mode: 0o700 });
    expect((await stat(rootsPrivateDir)).uid).toBe(0);
    await expect(checkPrivatePath(rootsPrivateDir, 'directory', () => undefined, playing(PLAYED_UID))).resolves.toBeUndefined();
    const err = await checkPrivatePath('/tmp', 'directory', () => undefined, playing(PLAYED_UID)).catch((e: unknown) => e);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).message).toMatch(/\/tmp is open to other users \(mode 777\); refusing/);
  });
});

describe('what others could plant', () => {
  // A dir of ours holding another user's file: no such tree can be made as a normal user, so the
  // owner of the planted file is played (as every owner here is), and the test runs as any user.
  it('refuses a writable dir holding something another user put there, and leaves it for a person to check', async () => {
    const config = join(dir, 'config');
    await mkdir(join(config, 'cache', 'servers'), { recursive: true });
    await chmod(config, 0o777);
    const planted = join(config, 'cache', 'servers', 'abc.json');
    await writeFile(planted, '{"as":{"token_endpoint":"https://attacker.example/token"}}');
    const me = (await stat(config)).uid;
    const err = await checkPrivatePath(config, 'directory', () => undefined, playing(me, { [planted]: STAND_IN_UID })).catch((e: unknown) => e);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).message).toBe(
      `The directory ${config} is writable by other users (mode 777) and holds ${planted}, which belongs to another user (uid ${STAND_IN_UID}); refusing to use it.`,
    );
    expect(await mode(config)).toBe(0o777);
    // The same tree with nothing of another user's in it is ours: repaired to 700.
    const notes: string[] = [];
    await checkPrivatePath(config, 'directory', (m) => notes.push(m), playing(me));
    expect(await mode(config)).toBe(0o700);
    expect(notes).toEqual([expect.stringMatching(/was writable by other users \(mode 777\); made it private/)]);
  });

  it('refuses a link another user planted, wherever it points', async () => {
    const file = join(dir, 'credentials.json');
    const target = join(dir, 'mine.json');
    await writeFile(target, '{}', { mode: 0o600 });
    await symlink(target, file);
    const owner = await ownedByAnother(file);
    await expect(checkPrivatePath(file, 'file', () => undefined, playing(PLAYED_UID))).rejects.toMatchObject({ code: 'unsafe_permissions', message: expect.stringContaining(`uid ${owner}`) });
    // The target alone is fine for the user it belongs to.
    await expect(checkPrivatePath(target, 'file', () => undefined, playing((await stat(target)).uid))).resolves.toBeUndefined();
  });
});
