// The README is what a newcomer reads first: short, opening with the two commands that set a fresh
// machine up and run the product and its tests, and those are the commands CI runs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultUsers } from '../../sandbox/src/users.js';

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

  it('shows how to try the sandbox with no display: how to start it, its users, a headless sign-in the docs examples run', () => {
    const section = /^## Try it on the sandbox\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
    expect(section).toContain('npm run sandbox');
    expect(section).toContain('npm run sandbox -- --help');
    for (const user of defaultUsers()) expect(section).toContain(`\`${user.username}\` / \`${user.password}\``);
    // Run by test/e2e/docs-examples.test.ts in the clone, where it starts the sandbox and signs in through its helper.
    const block = /^```sh runnable in-clone\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '';
    expect(block).toMatch(/^npm run sandbox\b/m);
    expect(block).toMatch(/^export BROWSER=.*sandbox\/src\/browser-driver\.mjs/m);
    expect(block).toMatch(/^school login --base-url /m);
  });
});

describe("the README's CI example", () => {
  it("keeps what the job's own notice says to cache: SCHOOL_CONFIG_DIR", () => {
    const notice = readFileSync(join(ROOT, 'src', 'session', 'headless.ts'), 'utf8');
    expect(notice).toMatch(/keep SCHOOL_CONFIG_DIR in the job's cache/);
    const section = /^## CI\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
    const job = /^```sh runnable\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? '';
    // Set inside the job's part, after the secrets are read, and said to be cached.
    expect(job.slice(job.indexOf('ci-secrets.env; set +a'))).toMatch(/^ *export SCHOOL_CONFIG_DIR=.*# cached/m);
    expect(section).toMatch(/keeps\s+its `SCHOOL_CONFIG_DIR` in the CI's cache/);
  });
});

describe('the documentation', () => {
  it('names no program a clone does not put on the PATH (the sandbox is `npm run sandbox`)', () => {
    const docs = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md'));
    const named = docs.filter((f) => /\bschool-sandbox\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(named).toEqual([]);
  });
});
