// The README is what a newcomer reads first: short, opening with the two commands that set a fresh
// machine up and run the product and its tests, and those are the commands CI runs.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const ciRun = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The commands of the README's first code block, without their comments. */
function openingCommands(): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

describe('README.md', () => {
  it('reads in five minutes: at most about 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
  });

  it('opens with the command that sets up and runs the demo, and the one that runs the tests', () => {
    expect(openingCommands()).toEqual(['bash .ci/setup && npm run demo', 'bash .ci/setup && npm test']);
    expect(scripts.demo).toBeDefined();
    expect(scripts.test).toBeDefined();
  });

  it('is what CI runs: the setup, the demo and the tests', () => {
    const lines = ciRun.split('\n').filter((l) => !l.trimStart().startsWith('#'));
    expect(lines).toContain('bash .ci/setup');
    expect(lines.some((l) => /\bnpm run demo\b/.test(l))).toBe(true);
    expect(lines).toContain('npm test');
  });

  it('links only to documents of the tree that exist', () => {
    const links = [...readme.matchAll(/\]\(((?!https?:|#)[^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    const missing = [...new Set(links)].filter((l) => !existsSync(join(ROOT, l)));
    expect(missing).toEqual([]);
  });
});
