// What a newcomer's first two commands (README: `bash .ci/setup && npm run demo`, then
// `bash .ci/setup && npm test`) cost and print: one `npm ci` between them, no npm notice that is
// not about this project, and test output without colour codes when it goes to a file or a pipe.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'school-setup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The environment of a person's shell: none of the variables of the test runner that runs this file. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'TERM']) if (process.env[k]) env[k] = process.env[k];
  return { TERM: 'xterm-256color', ...env, ...extra };
}

describe('.ci/dependencies (the npm part of .ci/setup)', () => {
  // A clone of its own: the script, a manifest and a lock; `npm` a stand-in that records its calls
  // and installs a keychain module that loads.
  const clone = join(scratch, 'clone');
  const calls = join(scratch, 'npm-calls.txt');
  mkdirSync(join(clone, '.ci'), { recursive: true });
  copyFileSync(join(REPO, '.ci', 'dependencies'), join(clone, '.ci', 'dependencies'));
  writeFileSync(join(clone, 'package.json'), '{ "name": "clone" }\n');
  writeFileSync(join(clone, 'package-lock.json'), '{ "lockfileVersion": 3 }\n');
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "$*" >> '${calls}'\nrm -rf node_modules && mkdir -p node_modules/keytar && echo 'module.exports = {};' > node_modules/keytar/index.js\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  const setup = () => spawnSync('bash', [join(clone, '.ci', 'dependencies')], { env: plainEnv({ PATH: `${bin}${delimiter}${process.env.PATH}` }), encoding: 'utf8' });
  const npmCalls = () => readFileSync(calls, 'utf8').trim().split('\n');

  it('runs npm ci once: a second setup finds node_modules as the lock has it and keeps it', () => {
    const first = setup();
    expect(first.status, first.stderr).toBe(0);
    expect(npmCalls()).toEqual(['ci --no-audit --no-fund']);
    const second = setup();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain('npm ci skipped');
    expect(npmCalls()).toHaveLength(1);
  });

  it('runs npm ci again when the lock changed, or when the keychain module no longer loads', () => {
    writeFileSync(join(clone, 'package-lock.json'), '{ "lockfileVersion": 3, "packages": {} }\n');
    expect(setup().status).toBe(0);
    expect(npmCalls()).toHaveLength(2);
    rmSync(join(clone, 'node_modules', 'keytar'), { recursive: true });
    expect(setup().status).toBe(0);
    expect(npmCalls()).toHaveLength(3);
    expect(setup().status).toBe(0);
    expect(npmCalls()).toHaveLength(3);
  });

  it('is what .ci/setup runs, in place of its own npm ci', () => {
    const script = readFileSync(join(REPO, '.ci', 'setup'), 'utf8');
    expect(script).toMatch(/^bash \.ci\/dependencies$/m);
    expect(script).not.toMatch(/^npm (ci|install)\b/m);
  });
});

describe("the project's npm configuration", () => {
  it("keeps npm's update notice and funding lines out of the project's output", () => {
    // The user's own configuration set aside: what the project's .npmrc says alone.
    const userconfig = join(scratch, 'empty-npmrc');
    writeFileSync(userconfig, '');
    const res = spawnSync('npm', ['config', 'get', 'update-notifier', 'fund', '--userconfig', userconfig], { cwd: REPO, env: plainEnv(), encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toEqual(['update-notifier=false', 'fund=false']);
  });
});

describe('test output', () => {
  const vitest = (extra: Record<string, string>) =>
    spawnSync('bash', [join(REPO, 'test', 'helpers', 'run-vitest.sh'), 'run', '--project', 'policy', 'test/policy/readme.test.ts'], {
      cwd: REPO,
      env: plainEnv({ PATH: `${join(REPO, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`, ...extra }),
      encoding: 'utf8',
    });

  it('has no colour codes when it goes to a pipe or a file, unless FORCE_COLOR asks for them', () => {
    const piped = vitest({});
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(/Tests: \d+ passed/);
    expect(piped.stdout + piped.stderr).not.toContain('\u001b[');
    const forced = vitest({ FORCE_COLOR: '1' });
    expect(forced.stdout).toContain('\u001b[');
  }, 60_000);

  it('is how every test script of the package runs vitest', () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const tests = Object.entries(scripts).filter(([name]) => name === 'test' || name.startsWith('test:'));
    expect(tests.length).toBeGreaterThan(3);
    for (const [name, script] of tests) expect(script, name).toMatch(/bash test\/helpers\/run-vitest\.sh run\b/);
  });
});
