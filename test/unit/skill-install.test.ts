// `school skill --install` in a folder where a checkout planted links: nothing is written through one.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installSkill } from '../../src/commands/skill/install.js';
import { SKILL_MARKER } from '../../src/commands/skill/skill-text.js';

const SKILL = `---\nname: school\n---\n${SKILL_MARKER}\n# the skill\n`;
let root: string;
let skills: string;
let outside: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'skill-install-'));
  skills = join(root, 'repo', '.claude', 'skills');
  outside = join(root, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'victim'), 'precious\n', { mode: 0o600 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const untouched = () => {
  expect(readFileSync(join(outside, 'victim'), 'utf8')).toBe('precious\n');
  expect(statSync(join(outside, 'victim')).mode & 0o777).toBe(0o600);
};

describe('skill --install', () => {
  it("writes school/SKILL.md with the umask's mode and leaves no temporary file", async () => {
    const { file, replaced } = await installSkill(skills, SKILL);
    expect(file).toBe(join(skills, 'school', 'SKILL.md'));
    expect(replaced).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(SKILL);
    expect(statSync(file).mode & 0o777).toBe(0o666 & ~process.umask());
    expect(readdirSync(join(skills, 'school'))).toEqual(['SKILL.md']);
    expect((await installSkill(skills, SKILL)).replaced).toBe(true);
  });

  it('refuses a school folder that is a symbolic link, writing nothing through it', async () => {
    mkdirSync(skills, { recursive: true });
    symlinkSync(outside, join(skills, 'school'));
    await expect(installSkill(skills, SKILL)).rejects.toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/school is a symbolic link/) }));
    expect(readdirSync(outside)).toEqual(['victim']);
    untouched();
  });

  it.each([
    { name: 'at a file outside', target: () => join(outside, 'victim') },
    { name: 'at a skill written before (the marker inside)', target: () => join(outside, 'victim') },
    { name: 'dangling', target: () => join(outside, 'not-yet') },
  ])('refuses a SKILL.md that is a symbolic link $name', async ({ name, target }) => {
    if (name.includes('marker')) writeFileSync(join(outside, 'victim'), `${SKILL_MARKER}\n`, { mode: 0o600 });
    mkdirSync(join(skills, 'school'), { recursive: true });
    symlinkSync(target(), join(skills, 'school', 'SKILL.md'));
    await expect(installSkill(skills, SKILL)).rejects.toThrow(/SKILL\.md is a symbolic link/);
    expect(lstatSync(join(skills, 'school', 'SKILL.md')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(outside, 'not-yet'))).toBe(false);
    if (!name.includes('marker')) untouched();
  });

  it('writes nothing through links planted under any temporary name a process id would give', async () => {
    mkdirSync(join(skills, 'school'), { recursive: true });
    for (const pid of [process.pid, process.pid + 1, 1]) {
      symlinkSync(join(outside, 'victim'), join(skills, 'school', `SKILL.md.${pid}.tmp`));
      symlinkSync(join(outside, 'victim'), join(skills, 'school', `.SKILL.md.${pid}.tmp`));
    }
    const { file } = await installSkill(skills, SKILL);
    expect(readFileSync(file, 'utf8')).toBe(SKILL);
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    untouched();
  });

  it('leaves a SKILL.md the person wrote alone', async () => {
    mkdirSync(join(skills, 'school'), { recursive: true });
    writeFileSync(join(skills, 'school', 'SKILL.md'), 'mine\n');
    await expect(installSkill(skills, SKILL)).rejects.toThrow(/was not written by `school skill`/);
    expect(readFileSync(join(skills, 'school', 'SKILL.md'), 'utf8')).toBe('mine\n');
  });
});
