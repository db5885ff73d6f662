import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Env, type RunResult, SCHOOL_BIN, expectSuccess, filesContaining, userEnv } from './harness.js';

// Driven the way an agent's shell tool runs a command: stdin from /dev/null, stdout and stderr
// piped, no TTY, every --json output read with JSON.parse.
function agentRun(args: string[], env: Env): Promise<RunResult & { ms: number }> {
  const started = Date.now();
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  const child = spawn(process.execPath, [SCHOOL_BIN, ...args], { env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  // 'close' waits for the pipes: a background process holding them would keep the tool waiting.
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started })));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TTL = 6;

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true, accessTokenTtl: TTL });
});
afterAll(async () => {
  await sandbox?.close();
});

function pendingRecord(env: { SCHOOL_CONFIG_DIR: string }, profile = 'default'): { listenerPid: number; redirectUri: string } {
  return JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', `${profile}.json`), 'utf8'));
}

async function keychainEntry(account: string): Promise<string | null> {
  const { default: keytar } = (await import('keytar')) as unknown as { default: typeof import('keytar') };
  return keytar.getPassword('school-cli', account);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function noWaitLogin(env: Env, extra: string[] = []) {
  const res = await agentRun(['login', '--no-wait', '--json', '--base-url', sandbox.baseUrl, ...extra], env);
  expectSuccess(res);
  const out = JSON.parse(res.stdout) as { url: string; profile: string; expires_at: number };
  return { res, out };
}

describe('two-step login for agents', () => {
  it('--no-wait returns at once with the URL; the browser comes back later; --wait exits 0 and token works', async () => {
    const env = userEnv();
    const { res, out } = await noWaitLogin(env);
    expect(Object.keys(out).sort()).toEqual(['expires_at', 'profile', 'url']);
    expect(out.profile).toBe('default');
    expect(out.expires_at).toBeGreaterThan(Date.now() / 1000 + 200);
    // The URL alone on a line of stderr, as for --no-browser.
    expect(res.stderr.split('\n')).toContain(out.url);
    expect(res.ms).toBeLessThan(15_000);

    const status = await agentRun(['status', '--json'], env);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ profile: 'default', pendingLogin: { expiresAt: out.expires_at } })]);

    const { listenerPid, redirectUri } = pendingRecord(env);
    await driveLogin(out.url);
    const waited = await agentRun(['login', '--wait', '--json'], env);
    expectSuccess(waited);
    expect(JSON.parse(waited.stdout)).toMatchObject({ status: 'logged_in', profile: 'default', base_url: sandbox.baseUrl, user: expect.stringContaining('Ada') });
    expect(waited.stderr).toMatch(/^Logged in as Ada/m);

    const token = await agentRun(['token'], env);
    expectSuccess(token);
    expect(token.stdout).toMatch(/^\S{20,}\n$/);
    // The listener is gone and took its port with it; only the outcome was read.
    for (let i = 0; i < 40 && alive(listenerPid); i++) await sleep(50);
    expect(alive(listenerPid)).toBe(false);
    expect(await portOpen(Number(new URL(redirectUri).port))).toBe(false);
    expect(readdirSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending')).filter((n) => n.endsWith('.json'))).toEqual([]);
    expect(filesContaining(env.HOME, token.stdout.trim())).toEqual([]);
    expect((await agentRun(['status'], env)).code).toBe(0);
    // The outcome was consumed: nothing is pending any more.
    expect((await agentRun(['login', '--wait'], env)).code).toBe(4);
  });

  it('--wait with no pending login exits 4 with one sentence', async () => {
    const env = userEnv();
    const res = await agentRun(['login', '--wait', '--json'], env);
    expect(res.code).toBe(4);
    expect(res.stdout).toBe('');
    expect(JSON.parse(res.stderr)).toMatchObject({ error: 'no_pending_login', message: 'No login is pending.' });
  });

  it('a pending login that times out leaves no process, no listening port and no secret behind', async () => {
    const env = userEnv();
    await noWaitLogin(env, ['--timeout', '2']);
    const { listenerPid, redirectUri } = pendingRecord(env);
    const port = Number(new URL(redirectUri).port);
    const verifierAccount = `pending:default@${env.SCHOOL_CONFIG_DIR}`;
    expect(await keychainEntry(verifierAccount)).toMatch(/\S{43,}/);
    expect(alive(listenerPid)).toBe(true);
    expect(await portOpen(port)).toBe(true);
    const waited = await agentRun(['login', '--wait'], env);
    expect(waited.code).toBe(4);
    expect(waited.stderr).toMatch(/timed out/);
    for (let i = 0; i < 40 && alive(listenerPid); i++) await sleep(50);
    expect(alive(listenerPid)).toBe(false);
    expect(await portOpen(port)).toBe(false);
    expect(existsSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', 'default.json'))).toBe(false);
    expect(await keychainEntry(verifierAccount)).toBeNull();
    expect((await agentRun(['status'], env)).stdout).not.toMatch(/Pending/);
  });

  it('a second --no-wait for the same profile replaces the first', async () => {
    const env = userEnv();
    const first = await noWaitLogin(env);
    const firstPid = pendingRecord(env).listenerPid;
    const second = await noWaitLogin(env);
    expect(second.res.stderr).toMatch(/earlier pending login was replaced/);
    expect(alive(firstPid)).toBe(false);
    expect(pendingRecord(env).listenerPid).not.toBe(firstPid);
    expect(second.out.url).not.toBe(first.out.url);
    await driveLogin(second.out.url);
    expectSuccess(await agentRun(['login', '--wait'], env));
  });
});

describe('CI and headless mode', () => {
  it.each([{ CI: 'true' }, { CI: '1' }, { SCHOOL_REFRESH_TOKEN: 'seed-0123456789abcdef', SCHOOL_CLIENT_ID: 'cid' }])('login exits 4 at once with %o, before any request', async (extra) => {
    const env = userEnv(extra);
    const before = sandbox.events.length;
    const res = await agentRun(['login', '--base-url', sandbox.baseUrl], env);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/SCHOOL_TOKEN/);
    expect(res.stderr).toMatch(/SCHOOL_REFRESH_TOKEN/);
    expect(res.ms).toBeLessThan(5000);
    expect(sandbox.events.length).toBe(before);
  });

  it('CI=false or CI=0 is no CI', async () => {
    for (const CI of ['false', '0', '']) {
      const res = await agentRun(['login', '--base-url', 'http://127.0.0.1:9', '--timeout', '1'], userEnv({ CI }));
      expect(res.stderr).toMatch(/connection refused/);
      expect(res.code).toBe(1);
    }
  });
});
