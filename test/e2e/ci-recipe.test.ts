// docs/ci.md tried as written: its runnable blocks against the sandbox (with the environment the
// docs examples get: SCHOOL_BASE_URL, a fresh SCHOOL_CONFIG_DIR, the headless sign-in driver, a
// keyring, and the placeholder URL replaced by the sandbox's), and its job script failing the
// job when the seed is refused.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type Env, type RunResult, REPO, SCHOOL_BIN, shellCommand, useSandbox, userEnv } from './harness.js';

const DOC = readFileSync(join(REPO, 'docs', 'ci.md'), 'utf8');
const blocks = (info: string) => [...DOC.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === info).map((m) => m[2]!);

const sandbox = useSandbox();

/** `school` on PATH, as an installed CLI is. */
function withSchoolOnPath(env: Env): Env {
  const bin = join(env.HOME!, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'school'), `#!/bin/sh\nexec ${shellCommand(process.execPath, SCHOOL_BIN)} "$@"\n`);
  chmodSync(join(bin, 'school'), 0o755);
  return { ...env, PATH: `${bin}:${env.PATH}` };
}

function bash(script: string, env: Env, cwd: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { env: env as NodeJS.ProcessEnv, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('docs/ci.md', () => {
  it('runs each runnable block as written against the sandbox', async () => {
    const runnable = blocks('sh runnable');
    expect(runnable.length).toBeGreaterThan(0);
    const env = withSchoolOnPath(userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl }));
    const cwd = mkdtempSync(join(env.HOME!, 'work-'));
    for (const block of runnable) {
      const res = await bash(block.replaceAll('https://your-school.example', sandbox.baseUrl), env, cwd);
      expect(res.code, `${block}\n--- stderr:\n${res.stderr}`).toBe(0);
      expect(res.stdout).toContain('ci-nightly: client');
      expect(res.stdout).not.toMatch(/SCHOOL_REFRESH_TOKEN=/);
    }
  });

  it("the job's script fails the job when the token cannot be had", async () => {
    const [script] = blocks('sh').filter((b) => b.includes('school token') && b.includes('curl'));
    expect(script).toBeDefined();
    const env = withSchoolOnPath(userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl, SCHOOL_CLIENT_ID: 'no-such-client', SCHOOL_REFRESH_TOKEN: 'not-a-seed-0123456789', BROWSER: undefined }));
    const res = await bash(script!, env, env.HOME!);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/school: /);
  });

  it('the seed commands of the login_unattended hint are the ones the doc gives, with the base URL', async () => {
    const { runSchool } = await import('./harness.js');
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl], userEnv({ CI: 'true' }));
    expect(res.code).toBe(4);
    expect(res.stderr).toContain(`\nschool login --base-url ${sandbox.baseUrl} --profile ci-job\nschool token --profile ci-job --for-ci\n`);
  });
});
