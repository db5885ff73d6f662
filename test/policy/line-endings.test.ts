// A checkout on Windows (core.autocrlf=true, Git for Windows' default) turns text files into
// CRLF unless .gitattributes pins them. Completion scripts, the bin and the shell scripts must stay
// LF wherever they are checked out: bash, zsh and fish refuse CR, and `#!/usr/bin/env node\r` fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const git = (args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' });
const PINNED = /^(completions|bin|sandbox\/bin|scripts|\.ci)\/|\.(sh|bash|fish)$/;

describe('line endings', () => {
  const tracked = git(['ls-files']).split('\n').filter(Boolean);
  const pinned = tracked.filter((f) => PINNED.test(f));

  it('pins completions/, bin/ and the scripts to LF in .gitattributes', () => {
    expect(pinned).toEqual(expect.arrayContaining(['completions/school.bash', 'completions/_school', 'completions/school.fish', 'bin/school.cjs', '.ci/setup']));
    const attrs = git(['check-attr', 'eol', '--', ...pinned])
      .split('\n')
      .filter(Boolean);
    expect(attrs).toHaveLength(pinned.length);
    for (const line of attrs) expect(line).toMatch(/: eol: lf$/);
  });

  it('keeps them LF in a checkout made with core.autocrlf=true, as on Windows', () => {
    const out = mkdtempSync(join(tmpdir(), 'school-crlf-'));
    // The index as a Windows checkout would write it out (the attributes come from the work tree).
    execFileSync('git', ['-c', 'core.autocrlf=true', '-c', 'core.eol=crlf', 'checkout-index', '--all', '--force', `--prefix=${out}/`], { cwd: REPO });
    const indexed = git(['ls-files', '--stage'])
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[1]);
    const checked = pinned.filter((f) => indexed.includes(f));
    expect(checked.length).toBeGreaterThan(4);
    for (const file of checked) expect(readFileSync(join(out, file), 'latin1').includes('\r'), file).toBe(false);
    // The conversion is on: a file that is not pinned did become CRLF.
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('\r\n');
  });
});
