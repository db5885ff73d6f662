import { randomBytes } from 'node:crypto';
import { type Stats, constants, promises as fs } from 'node:fs';
import { join } from 'node:path';
import { CliError, errnoCode } from '../../errors.js';
import { printable } from '../../util/printable.js';
import { SKILL_MARKER } from './skill-text.js';

// The skill is installed where a checkout may have planted links (`.claude/skills/school/` of a
// repository): nothing here follows one. The folder and the file are refused when they are links,
// the temporary file has an unguessable name and is created only if absent, never through a link.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const READ_NO_LINK = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

function refusal(what: string, hint: string): CliError {
  return new CliError(what, { code: 'usage', hint });
}

async function lstatIfAny(path: string): Promise<Stats | undefined> {
  return fs.lstat(path).catch((err: unknown) => (errnoCode(err) === 'ENOENT' ? undefined : Promise.reject(err)));
}

/** `<parent>/school`, made if absent; refused when it is a link or not a folder. */
async function skillFolder(parent: string): Promise<{ dir: string; stats: Stats }> {
  const dir = join(parent, 'school');
  await fs.mkdir(parent, { recursive: true });
  await fs.mkdir(dir).catch((err: unknown) => (errnoCode(err) === 'EEXIST' ? undefined : Promise.reject(err)));
  const stats = await fs.lstat(dir);
  if (stats.isSymbolicLink()) throw refusal(`${printable(dir)} is a symbolic link: the skill is not written through it.`, 'Remove the link, or install into another directory.');
  if (!stats.isDirectory()) throw refusal(`${printable(dir)} is not a folder: the skill is not written there.`, 'Move it away, or install into another directory.');
  return { dir, stats };
}

/** The text of an existing `SKILL.md`, read without following a link; undefined when there is none. */
async function existingSkill(file: string): Promise<string | undefined> {
  const stats = await lstatIfAny(file);
  if (!stats) return undefined;
  if (stats.isSymbolicLink()) throw refusal(`${printable(file)} is a symbolic link: it is left as it is.`, 'Remove the link, or install into another directory.');
  if (!stats.isFile()) throw refusal(`${printable(file)} is not a plain file: it is left as it is.`, 'Move it away, or install into another directory.');
  const handle = await fs.open(file, READ_NO_LINK);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Writes `<parent>/school/SKILL.md` in one step (a temporary file renamed over it), with the mode
 * the umask gives a new file (0644 under the usual 022). A file the person wrote or changed under
 * this name is theirs: never overwritten. Returns the path and whether a skill was replaced.
 */
export async function installSkill(parent: string, text: string): Promise<{ file: string; replaced: boolean }> {
  const { dir, stats } = await skillFolder(parent);
  const file = join(dir, 'SKILL.md');
  const existing = await existingSkill(file);
  if (existing !== undefined && !existing.includes(SKILL_MARKER)) {
    throw refusal(`${printable(file)} exists and was not written by \`school skill\`: it is left as it is.`, 'Move it away, or install into another directory.');
  }
  const temp = join(dir, `.SKILL.md.${randomBytes(12).toString('hex')}.tmp`);
  const handle = await fs.open(temp, CREATE_NEW, 0o666);
  try {
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    // The folder swapped for a link while the file was written would move the rename elsewhere.
    const now = await fs.lstat(dir);
    if (now.isSymbolicLink() || now.ino !== stats.ino || now.dev !== stats.dev) {
      throw refusal(`${printable(dir)} changed while the skill was written: it is not installed.`, 'Run the command again.');
    }
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  return { file, replaced: existing !== undefined };
}
