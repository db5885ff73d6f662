import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkPrivatePath, checkPrivatePaths, forgetCheckedPaths } from '../../src/state/permissions.js';
import { resolvePaths } from '../../src/state/paths.js';
import { CliError } from '../../src/errors.js';
import { openFileStore } from '../../src/state/file-store.js';

let dir: string;
const mode = async (p: string) => (await stat(p)).mode & 0o777;

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

  // Giving a file to another user needs root: these run where the tests run as root (CI containers).
  it.runIf(process.getuid?.() === 0)('refuses a dir or a credential file owned by another user, naming the path and chown', async () => {
    const { chown } = await import('node:fs/promises');
    const config = join(dir, 'config');
    await mkdir(config, { mode: 0o700 });
    await chown(config, 12345, 12345);
    const err = await checkPrivatePath(config, 'directory', () => undefined).catch((e: unknown) => e);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).message).toBe(`The directory ${config} belongs to another user (uid 12345); refusing to use it.`);
    expect((err as CliError).hint).toContain(`chown -R "$(id -un)" '${config}'`);
    await chown(config, 0, 0);
    const file = join(config, 'credentials.json');
    await writeFile(file, '{"version":1,"entries":{}}', { mode: 0o600 });
    await chown(file, 12345, 12345);
    const store = openFileStore(file, join(config, 'locks'));
    await expect(store.get('a')).rejects.toMatchObject({ code: 'unsafe_permissions' });
  });

  it.runIf(typeof process.getuid === 'function' && process.getuid() !== 0)('accepts a root-owned dir that is private, refuses one open to others', async () => {
    await expect(checkPrivatePath('/root', 'directory', () => undefined)).resolves.toBeUndefined();
    const err = await checkPrivatePath('/tmp', 'directory', () => undefined).catch((e: unknown) => e);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).message).toMatch(/\/tmp is open to other users \(mode 777\); refusing/);
  });
});

describe('what others could plant', () => {
  it.runIf(process.getuid?.() === 0)('refuses a writable dir holding something another user put there, and leaves it for a person to check', async () => {
    const { chown, symlink } = await import('node:fs/promises');
    const config = join(dir, 'config');
    await mkdir(join(config, 'cache', 'servers'), { recursive: true });
    await chmod(config, 0o777);
    const planted = join(config, 'cache', 'servers', 'abc.json');
    await writeFile(planted, '{"as":{"token_endpoint":"https://attacker.example/token"}}');
    await chown(planted, 12345, 12345);
    const err = await checkPrivatePath(config, 'directory', () => undefined).catch((e: unknown) => e);
    expect((err as CliError).code).toBe('unsafe_permissions');
    expect((err as CliError).message).toBe(`The directory ${config} is writable by other users (mode 777) and holds ${planted}, which belongs to another user (uid 12345); refusing to use it.`);
    expect(await mode(config)).toBe(0o777);
    // A link another user planted is theirs, wherever it points.
    await rm(planted);
    await chmod(config, 0o700);
    const file = join(config, 'credentials.json');
    const target = join(dir, 'mine.json');
    await writeFile(target, '{}', { mode: 0o600 });
    await symlink(target, file);
    const { lchown } = await import('node:fs/promises');
    await lchown(file, 12345, 12345);
    await expect(checkPrivatePath(file, 'file', () => undefined)).rejects.toMatchObject({ code: 'unsafe_permissions' });
  });
});
