import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string>; files: string[] };

describe('the published package', () => {
  it('runs no script of its own at install time: it is built when packed', () => {
    // npm runs these on the installing machine (and npm 11 names each one that allowScripts does not cover);
    // the README's Install asks to allow keytar's alone.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts[hook], hook).toBeUndefined();
    expect(manifest.scripts.prepack).toMatch(/npm run build/);
    expect(manifest.files).toContain('dist');
  });

  it('is built by the setup a fresh clone runs first', () => {
    expect(readFileSync(join(REPO, '.ci', 'setup'), 'utf8')).toMatch(/^npm run build/m);
    expect(manifest.scripts.demo).toMatch(/^npm run build/);
    expect(manifest.scripts.test).toMatch(/^npm run build/);
  });
});
