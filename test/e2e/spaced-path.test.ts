// A checkout in a folder whose path has a space and a non-ASCII letter (`C:\Users\Ada Lovelace\…`,
// `~/my schöol/…`) must build and run, and so must what the README tells a newcomer to run there:
// the demo and the test suite. Every module URL becomes a file path through fileURLToPath, never
// through URL.pathname (which keeps `%20`, and gives `/C:/…` on Windows), and every command line
// a script or a test helper builds quotes the paths it puts in.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_VARIABLE } from '../helpers/leftover-processes.js';
import { REPO, expectSuccess, shellCommand, spawnNode, useSandbox, userEnv } from './harness.js';

const scratch = mkdtempSync(join(tmpdir(), 'school spaced '));
const copy = join(scratch, 'my schöol', 'school');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The checkout's files as git sees them (committed or not), copied under the path with a space;
 * node_modules hard-linked (a symbolic link would send the workspace's `@school/sandbox` back to
 * the original checkout, hiding what the copy's own paths do).
 */
function copyCheckout(): void {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(REPO, file))) continue; // deleted in the work tree
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(REPO, file), join(copy, file));
  }
  execFileSync('cp', ['-al', join(REPO, 'node_modules'), join(copy, 'node_modules')]);
}

/** What a person's shell passes on: no variable of the test runner that runs this file. */
function personEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'XDG_DATA_HOME', 'LANG', 'TERM']) if (process.env[k]) env[k] = process.env[k];
  env.HOME = mkdtempSync(join(scratch, 'home '));
  env[OWNER_VARIABLE] = String(process.pid);
  return env;
}

const sandbox = useSandbox();

describe('a checkout in a path with a space and a non-ASCII letter', () => {
  let build: ReturnType<typeof spawnSync>;
  beforeAll(() => {
    copyCheckout();
    build = spawnSync(process.execPath, [join(copy, 'scripts', 'build.mjs')], { cwd: copy, encoding: 'utf8' });
  }, 120_000);

  it('builds (scripts/build.mjs, what `npm run build` and a pack run), and the built CLI runs from there', () => {
    expect(build.status, String(build.stderr)).toBe(0);
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

  it('logs in through the browser driver of that checkout and calls the API', async () => {
    const home = mkdtempSync(join(scratch, 'user home '));
    const env = userEnv({
      HOME: home,
      SCHOOL_CONFIG_DIR: join(home, 'config ö'),
      BROWSER: shellCommand(process.execPath, join(copy, 'sandbox', 'src', 'browser-driver.mjs')),
      BROWSER_DRIVER_LOG: join(home, 'browser-driver.log'),
    });
    const bin = join(copy, 'bin', 'school.cjs');
    expectSuccess(await spawnNode([bin, 'login', '--base-url', sandbox.baseUrl], env).done);
    const call = expectSuccess(await spawnNode([bin, 'call', '/api/courses'], env).done);
    expect(JSON.parse(call.stdout)).toMatchObject({ anonymous: false });
    expectSuccess(await spawnNode([bin, 'logout'], env).done);
  });

  it('runs the demo from there, every step as expected', async () => {
    const tsx = join(copy, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const demo = await spawnNode([tsx, join(copy, 'scripts', 'demo.ts')], personEnv(), { cwd: copy, stdin: 'ignore' }).done;
    expect(demo.code, demo.stdout + demo.stderr).toBe(0);
    expect(demo.stdout).toContain('Every step behaved as expected.');
  }, 180_000);

  it('runs an end-to-end test file from there, its harness driving the browser with the quoted paths', async () => {
    const vitest = join(copy, 'node_modules', 'vitest', 'vitest.mjs');
    const run = await spawnNode([vitest, 'run', '--project', 'e2e', 'test/e2e/login.test.ts', '-t', 'logs in through a real browser'], personEnv(), { cwd: copy, stdin: 'ignore' }).done;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/1 passed/);
  }, 180_000);

  it('runs from there the end-to-end cases whose helpers put its paths in NODE_OPTIONS and in wrapper scripts', async () => {
    // Each case preloads a module of the checkout (test/helpers/loaded-modules.cjs, through
    // preloading()) or runs `school` through a shell script naming bin/school.cjs (shellCommand()).
    const cases: Record<string, string> = {
      // (The completion case reads the cache the listing before it fills.)
      'test/e2e/api.test.ts':
        'lists the operations by area, and as JSON|completes operation names, their flags and enum values from the cache|school token loads no validator and reads no description',
      'test/e2e/session.test.ts': "refreshes without loading Node's fetch implementation",
      'test/e2e/mcp.test.ts': '`school token` does not load the MCP SDK or the server bundle',
      'test/e2e/completion.test.ts': 'works when loaded with source <\\(school completion bash\\)',
    };
    const vitest = join(copy, 'node_modules', 'vitest', 'vitest.mjs');
    const pattern = Object.values(cases).join('|');
    const run = await spawnNode([vitest, 'run', '--project', 'e2e', ...Object.keys(cases), '-t', pattern], personEnv(), { cwd: copy, stdin: 'ignore' }).done;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // Every case ran (a name that no longer matches would pass by running nothing).
    expect(run.stdout).toContain('Tests: 6 passed, 0 failed');
  }, 240_000);
});
