// A checkout in a folder whose path has a space (`C:\Users\Ada Lovelace\…`, `~/My Projects/…`)
// must build and run: every module URL becomes a file path through fileURLToPath, never through
// URL.pathname (which keeps `%20`, and gives `/C:/…` on Windows).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, userEnv } from './harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'school spaced '));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The checkout's files as git sees them (committed or not), copied under a path with spaces; node_modules shared by a link. */
function copyCheckout(): string {
  const copy = join(scratch, 'my projects', 'school');
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(REPO, file))) continue; // deleted in the work tree
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(REPO, file), join(copy, file));
  }
  symlinkSync(join(REPO, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

describe('a checkout in a path with spaces', () => {
  it('builds (scripts/build.mjs, what `npm run build` and a pack run), and the built CLI runs from there', () => {
    const copy = copyCheckout();
    const build = spawnSync(process.execPath, [join(copy, 'scripts', 'build.mjs')], { cwd: copy, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
    expect(existsSync(join(copy, 'dist', 'cli.cjs'))).toBe(true);
    expect(existsSync(join(copy, 'dist', 'oauth4webapi.cjs'))).toBe(true);
    expect(existsSync(join(copy, 'dist', 'library.cjs'))).toBe(true);
    expect(existsSync(join(copy, 'dist', 'mcp.cjs'))).toBe(true);
    expect(existsSync(scratch.replaceAll(' ', '%20'))).toBe(false); // nothing written under an escaped name
    const env = userEnv() as NodeJS.ProcessEnv;
    const bin = join(copy, 'bin', 'school.cjs');
    const version = spawnSync(process.execPath, [bin, '--version'], { env, encoding: 'utf8' });
    expect(version.status, version.stderr).toBe(0);
    const completion = spawnSync(process.execPath, [bin, 'completion', 'bash'], { env, encoding: 'utf8' });
    expect(completion.status, completion.stderr).toBe(0);
    expect(completion.stdout).toContain('complete -F');
    // `school token` with nothing configured goes through the code cache the build made there.
    const token = spawnSync(process.execPath, [bin, 'token'], { env, encoding: 'utf8' });
    expect(token.status).toBe(4);
    expect(token.stderr).toContain('Not logged in');
  });
});
