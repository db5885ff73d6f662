import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { SCHOOL_BIN, runSchool, userEnv } from './harness.js';

describe('the command line surface', () => {
  it('lists every command of the contract in --help, on stdout, exit 0', async () => {
    const res = await runSchool(['--help'], userEnv());
    expect(res.code).toBe(0);
    for (const cmd of ['login', 'logout', 'whoami', 'token', 'call', 'status', 'completion']) expect(res.stdout).toMatch(new RegExp(`^  ${cmd}\\b`, 'm'));
    expect(res.stdout).not.toContain('__complete');
    expect(res.stderr).toBe('');
  });

  it('prints the help rendered at build time exactly as the full parser renders it on a pipe', async () => {
    // `--help` alone takes the fast path (the text fixed by the build); with --verbose before it the
    // command parser renders it at run time. Both must be the same bytes.
    const [fast, parsed, bare] = await Promise.all([runSchool(['--help'], userEnv()), runSchool(['--verbose', '--help'], userEnv()), runSchool([], userEnv())]);
    expect(fast.stdout).toMatch(/^Usage: school /);
    expect(parsed.code).toBe(0);
    expect(fast.stdout).toBe(parsed.stdout);
    expect(bare.stdout).toBe(parsed.stdout);
  });

  it('prints the version', async () => {
    const res = await runSchool(['--version'], userEnv());
    expect(res.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it.each([
    [['login', '--bogus'], "school: Unknown option '--bogus' for 'school login'. Run 'school login --help'.\n"],
    [['completion'], "school: 'school completion' needs the argument <shell>. Run 'school completion --help'.\n"],
    [['logn'], "school: Unknown command 'logn' (did you mean 'login'?). Run 'school --help'.\n"],
    [['call', '/x', '--method'], "school: The option '-X, --method <method>' of 'school call' needs a value. Run 'school call --help'.\n"],
  ])('reports %j once, as a usage error (exit 2)', async (args, message) => {
    const res = await runSchool(args, userEnv());
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(message);
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('gives JSON errors on stderr with --json, wherever --json stands', async () => {
    for (const args of [
      ['--json', 'whoami'],
      ['whoami', '--json'],
    ]) {
      const res = await runSchool(args, userEnv());
      expect(res.code).toBe(4);
      expect(JSON.parse(res.stderr)).toMatchObject({ error: 'not_logged_in', message: 'Not logged in.', hint: expect.stringContaining('school login') });
    }
    const usage = await runSchool(['login', '--bogus', '--json'], userEnv());
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toMatchObject({ error: 'usage' });
  });

  it('refuses an invalid profile name', async () => {
    const res = await runSchool(['status', '--profile', '../etc'], userEnv());
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/Invalid profile name/);
  });
});

describe('the installed build', () => {
  it.each([
    ['CLI', undefined],
    ['CLI', 'api'],
    ['LIBRARY', undefined],
    ['MCP', undefined],
  ])('starts the %s from a code cache (%s) that this Node accepts, made from the bundle beside it', (bundle, flavour) => {
    // V8 silently ignores a cache that does not fit (another Node, another bundle): the CLI would
    // still run, only slower, so this is checked here rather than noticed in the benchmark.
    const probe = `const loader = require(${JSON.stringify(SCHOOL_BIN)});
      const { readFileSync } = require('node:fs');
      const file = loader[${JSON.stringify(bundle)}];
      const script = loader.compileBundle(file, readFileSync(file, 'utf8'), readFileSync(loader.codeCacheOf(file, ${JSON.stringify(flavour)})));
      process.stdout.write(String(script.cachedDataRejected));`;
    const run = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('false');
  });

  it('loads ES module packages from the cached compile, which has no import(): jq judges a --jq expression', async () => {
    // jq (jq-wasm, an ES module) compiles the expression before any request: its own message proves it loaded.
    const res = await runSchool(['call', '/api/courses', '--base-url', 'http://127.0.0.1:9', '--jq', '.['], userEnv({ SCHOOL_TOKEN: 'unused' }));
    expect(res.stderr).toMatch(/^school: Invalid --jq expression: syntax error, unexpected end of file/);
    expect(res.code).toBe(2);
  });
});

describe('pipes', () => {
  it('stops quietly when the reader closes the pipe early', async () => {
    const { spawn } = await import('node:child_process');
    const { SCHOOL_BIN } = await import('./harness.js');
    const res = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [SCHOOL_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.stdout.destroy(); // the reader is gone before the first write, like `| head -0`
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
  });
});
