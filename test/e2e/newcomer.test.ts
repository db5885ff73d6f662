import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type Env, REPO, expectSuccess, runSchool, spawnNode, userEnv, withoutKeychain, useSandbox } from './harness.js';

const sandbox = useSandbox();

interface DoctorFinding {
  area: string;
  subject?: string;
  check: string;
  status: 'ok' | 'info' | 'warning' | 'problem';
  message: string;
  fix?: string;
}

async function doctor(env: Env, extra: string[] = []): Promise<{ code: number | null; report: { ok: boolean; problems: number; findings: DoctorFinding[] }; stderr: string; stdout: string }> {
  const res = await runSchool(['doctor', '--json', ...extra], env);
  return { code: res.code, report: JSON.parse(res.stdout), stderr: res.stderr, stdout: res.stdout };
}

const finding = (findings: DoctorFinding[], check: string, subject?: string) => findings.find((f) => f.check === check && (subject === undefined || f.subject === subject));

async function login(env: Env, extra: string[] = []) {
  const res = expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, ...extra], env));
  expect(res.stderr).toContain('Logged in as');
}

describe('school doctor', () => {
  it('checks the server, the clock, the keychain and a logged-in profile, and exits 0 when all is well', async () => {
    const env = userEnv();
    await login(env);
    const { code, report, stderr, stdout } = await doctor(env);
    expect(report.problems).toBe(0);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(stderr).toBe('');
    const { findings } = report;
    expect(finding(findings, 'reachable', sandbox.baseUrl)?.status).toBe('ok');
    expect(finding(findings, 'metadata', sandbox.baseUrl)).toMatchObject({ status: 'ok', message: expect.stringContaining(`issuer ${sandbox.issuer}`) });
    expect(finding(findings, 'clock', sandbox.baseUrl)?.status).toBe('ok');
    expect(finding(findings, 'keychain')).toMatchObject({ status: 'ok', message: expect.stringMatching(/usable .* \d+ ms/) });
    expect(finding(findings, 'registration', 'default')?.status).toBe('ok');
    expect(finding(findings, 'tokens', 'default')).toMatchObject({ status: 'ok', message: expect.stringContaining('courses:read') });
    expect(finding(findings, 'token_accepted', 'default')?.status).toBe('ok');
    expect(finding(findings, 'permissions')?.status).toBe('ok');
    // No secret of the session reaches the report.
    const config = readFileSync(join(env.SCHOOL_CONFIG_DIR, 'config.json'), 'utf8');
    const token = (await runSchool(['token'], env)).stdout.trim();
    expect(token.length).toBeGreaterThan(10);
    expect(stdout).not.toContain(token);
    expect(config).not.toContain(token);
  });

  it('exits 1 with a fix for each problem: a server that is not there, a credential file others can read', async () => {
    const env = userEnv();
    await login(env, ['--insecure-storage']);
    const { chmodSync } = await import('node:fs');
    chmodSync(join(env.SCHOOL_CONFIG_DIR, 'credentials.json'), 0o644);
    const { code, report, stderr } = await doctor(env, ['--base-url', 'http://127.0.0.1:9']);
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    expect(JSON.parse(stderr)).toMatchObject({ error: 'problems_found' });
    expect(finding(report.findings, 'reachable', 'http://127.0.0.1:9')).toMatchObject({ status: 'problem', fix: expect.stringContaining('base URL') });
    const permissions = report.findings.find((f) => f.check === 'permissions' && f.status === 'problem');
    expect(permissions).toMatchObject({ message: expect.stringContaining('credentials.json has mode 0644'), fix: expect.stringMatching(/^chmod 600 /) });
    // The profile itself is still fine.
    expect(finding(report.findings, 'tokens', 'default')?.status).toBe('ok');
  });

  it('in CI, without a keychain, confirms SCHOOL_TOKEN with the server, and fails on a bad one', async () => {
    const desk = userEnv();
    await login(desk);
    const token = expectSuccess(await runSchool(['token'], desk)).stdout.trim();
    const ci = withoutKeychain(userEnv({ CI: 'true', SCHOOL_BASE_URL: sandbox.baseUrl, SCHOOL_TOKEN: token }));
    const good = await doctor(ci);
    expect(good.code).toBe(0);
    expect(finding(good.report.findings, 'environment_token')?.status).toBe('ok');
    expect(finding(good.report.findings, 'keychain')?.status).toBe('info');
    expect(good.stdout).not.toContain(token);
    const bad = await doctor({ ...ci, SCHOOL_TOKEN: 'not-a-real-token-0123456789' });
    expect(bad.code).toBe(1);
    expect(finding(bad.report.findings, 'environment_token')).toMatchObject({ status: 'problem', message: expect.stringContaining('rejected SCHOOL_TOKEN') });
    expect(JSON.parse(bad.stderr)).toMatchObject({ error: 'problems_found' });
  });

  it('prints a report for a person without a terminal, with the fix under each problem', async () => {
    const env = userEnv();
    const res = await runSchool(['doctor', '--base-url', 'localhost:8080'], env);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^ {2}PROBLEM +The base URL "localhost:8080" has no scheme: did you mean http:\/\/localhost:8080 or https:\/\/localhost:8080\?$/m);
    expect(res.stdout).toMatch(/^ +Fix: /m);
    expect(res.stdout).not.toContain('\u001b[');
    expect(res.stderr).toMatch(/^school: Found 1 problem/);
  });
});

/**
 * The built package as npm leaves it when it could not build the keychain module: its files, and
 * every dependency but keytar (npm drops an optional dependency whose build failed, without a word).
 */
function installWithoutKeychainModule(): string {
  const root = mkdtempSync(join(tmpdir(), 'school-no-keytar-'));
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(REPO, part), join(root, part), { recursive: true });
  mkdirSync(join(root, 'node_modules'));
  for (const name of readdirSync(join(REPO, 'node_modules'))) {
    if (name !== 'keytar' && !name.startsWith('.')) symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name));
  }
  return join(root, 'bin', 'school.cjs');
}

describe('an installation whose keychain module npm could not build', () => {
  it('says so in one line at the first login, and doctor tells why and how to build it, not to install libsecret', async () => {
    const bin = installWithoutKeychainModule();
    onTestFinished(() => rmSync(join(bin, '..', '..'), { recursive: true, force: true }));
    const env = userEnv();
    const login = expectSuccess(await spawnNode([bin, 'login', '--base-url', sandbox.baseUrl], env).done);
    const notice = login.stderr.split('\n').filter((line) => line.includes('keychain'));
    expect(notice).toEqual([
      expect.stringMatching(/^Warning: The keychain module \(keytar\) is not installed, so the credentials are stored in plain text at .*`school doctor` says why, and how to build it\.$/),
    ]);
    const res = await spawnNode([bin, 'doctor', '--json'], env).done;
    const keychain = finding((JSON.parse(res.stdout) as { findings: DoctorFinding[] }).findings, 'keychain');
    expect(keychain).toMatchObject({ status: 'warning', data: { cause: 'module_missing' } });
    expect(keychain?.message).toContain('could not be built when school was installed: no prebuilt binary could be downloaded');
    expect(keychain?.fix).toMatch(/^Build it: .*npm install -g \.\/school-0\.1\.0\.tgz; /);
    expect(keychain?.fix).not.toContain('libsecret-1-0');
    // The same checkout with its module answers for the keychain as usual.
    expect(finding((await doctor(env)).report.findings, 'keychain')).toMatchObject({ status: 'ok' });
  });
});

describe('newcomer mistakes', () => {
  it('a scheme-less base URL gets the URLs it may mean, exit 2, before any network call', async () => {
    const res = await runSchool(['login', '--base-url', 'localhost:8080', '--json'], userEnv());
    expect(res.code).toBe(2);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: 'invalid_base_url', message: expect.stringContaining('did you mean http://localhost:8080 or https://localhost:8080?') });
  });

  it('a port browsers block is refused at once and not remembered', async () => {
    const env = userEnv();
    const seen = sandbox.events.length;
    const started = Date.now();
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--port', '6000', '--json'], env);
    expect(res.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: 'blocked_port', message: 'Cannot use --port 6000: browsers refuse to connect to port 6000 (x11).' });
    // Refused before discovery: the server heard nothing.
    expect(sandbox.events.slice(seen)).toEqual([]);
    const status = await runSchool(['status', '--json'], env);
    expect(JSON.parse(status.stdout)).toEqual([]);
  });

  it('the "did you mean" hint of login is a whole command line with the flags given', async () => {
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--scope', 'coures:read', '--no-browser', '--json'], userEnv());
    expect(res.code).toBe(2);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: 'invalid_scope', scope: 'coures:read', hint: `school login --base-url ${sandbox.baseUrl} --scope courses:read --no-browser --json` });
  });

  it('a base URL stays known after logout: in the hint, and as the next login default', async () => {
    const env = userEnv();
    await login(env, ['--profile', 'night']);
    expectSuccess(await runSchool(['logout', '--profile', 'night'], env));
    const token = await runSchool(['token', '--profile', 'night', '--json'], env);
    expect(token.code).toBe(4);
    expect(JSON.parse(token.stderr)).toMatchObject({ error: 'not_logged_in', hint: `school login --base-url ${sandbox.baseUrl} --profile night` });
    const again = expectSuccess(await runSchool(['login', '--profile', 'night'], env));
    expect(again.stderr).toContain(`Logged in as`);
    expect(again.stderr).toContain(sandbox.baseUrl);
  });
});
