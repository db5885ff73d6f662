import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import {
  type Env,
  expectSuccess,
  expire,
  filesContaining,
  keychainEntry,
  keychainSecret,
  profileAccount,
  userEnv,
  withoutKeychain,
  runAsAgent,
  useSandbox,
  SCHOOL_BIN,
  spawnNode,
  processAlive,
} from './harness.js';

// Driven the way an agent's shell tool runs a command: stdin from /dev/null, stdout and stderr
// piped, no TTY, every --json output read with JSON.parse.
const agentRun = runAsAgent;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Tokens last an hour; a test makes time pass with expire(), never by waiting.
const sandbox = useSandbox();

function pendingRecord(env: { SCHOOL_CONFIG_DIR: string }, profile = 'default'): { listenerPid: number; redirectUri: string; state: string } {
  return JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', `${profile}.json`), 'utf8'));
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
    expect(JSON.parse(status.stdout)).toEqual([expect.objectContaining({ profile: 'default', pending_login: { expires_at: out.expires_at, url: out.url } })]);

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
    for (let i = 0; i < 40 && processAlive(listenerPid); i++) await sleep(50);
    expect(processAlive(listenerPid)).toBe(false);
    expect(await portOpen(Number(new URL(redirectUri).port))).toBe(false);
    expect(readdirSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending')).filter((n) => n.endsWith('.json'))).toEqual([]);
    expect(filesContaining(env.HOME, token.stdout.trim())).toEqual([]);
    expect((await agentRun(['status'], env)).code).toBe(0);
    // The outcome was consumed: nothing is pending any more.
    expect((await agentRun(['login', '--wait'], env)).code).toBe(4);
  });

  it('a wrong-state callback from another process leaves the pending --no-wait login waiting; the browser then completes it', async () => {
    const env = userEnv();
    const { out } = await noWaitLogin(env);
    const { listenerPid, redirectUri, state } = pendingRecord(env);
    // Another local process, as an attacker would be: its own GET with a state that is not the login's.
    const forgedUrl = `${redirectUri}?code=forged&state=not-${state}`;
    const forged = await spawnNode(['-e', `fetch(${JSON.stringify(forgedUrl)}).then(async (r) => console.log(r.status, await r.text()))`], env).done;
    expect(forged.stdout).toMatch(/^400 This sign-in response is not the one this login is waiting for/);
    expect(processAlive(listenerPid)).toBe(true);
    const pending = await agentRun(['login', '--wait', '--timeout', '1', '--json'], env);
    expect(pending.code).toBe(4);
    expect(pending.stderr).not.toMatch(/security check/);

    await driveLogin(out.url);
    const waited = await agentRun(['login', '--wait', '--json'], env);
    expectSuccess(waited);
    expect(JSON.parse(waited.stdout)).toMatchObject({ status: 'logged_in', user: expect.stringContaining('Ada') });
    expect(sandbox.events.some((e) => e.type === 'token' && e.grant_type === 'authorization_code' && e.code === 'forged')).toBe(false);
  });

  it('the background listener leaves the working directory free, and a relative config dir still names the same place', async () => {
    // Windows keeps a process's working directory from being removed: the listener must not sit in the caller's.
    const { mkdtempSync, readlinkSync, realpathSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const work = realpathSync(mkdtempSync(join(tmpdir(), 'school-cwd-')));
    const env = userEnv({ SCHOOL_CONFIG_DIR: 'conf' });
    const runIn = (args: string[]) => spawnNode([SCHOOL_BIN, ...args], env, { cwd: work, stdin: 'ignore' }).done;
    const started = expectSuccess(await runIn(['login', '--no-wait', '--json', '--base-url', sandbox.baseUrl]));
    const { listenerPid } = pendingRecord({ SCHOOL_CONFIG_DIR: join(work, 'conf') });
    expect(readlinkSync(`/proc/${listenerPid}/cwd`)).not.toBe(work);
    await driveLogin(JSON.parse(started.stdout).url);
    expectSuccess(await runIn(['login', '--wait']));
    expectSuccess(await runIn(['token']));
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
    expect(await keychainSecret(verifierAccount)).toMatch(/\S{43,}/);
    expect(processAlive(listenerPid)).toBe(true);
    expect(await portOpen(port)).toBe(true);
    const waited = await agentRun(['login', '--wait'], env);
    expect(waited.code).toBe(4);
    expect(waited.stderr).toMatch(/No sign-in response arrived within 2 seconds; the pending login was abandoned/);
    // A first login saved no profile: the command to start again names the server.
    expect(waited.stderr).toContain(`school login --base-url ${sandbox.baseUrl} --no-wait`);
    for (let i = 0; i < 40 && processAlive(listenerPid); i++) await sleep(50);
    expect(processAlive(listenerPid)).toBe(false);
    expect(await portOpen(port)).toBe(false);
    expect(existsSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', 'default.json'))).toBe(false);
    expect(await keychainSecret(verifierAccount)).toBeNull();
    expect((await agentRun(['status'], env)).stdout).not.toMatch(/Pending/);
  });

  it('--wait exits 4 with the reason when the person denied consent', async () => {
    const env = userEnv();
    const { out } = await noWaitLogin(env, ['--profile', 'denied']);
    await driveLogin(out.url, { consent: 'deny' });
    const res = await agentRun(['login', '--wait', '--profile', 'denied', '--json'], env);
    expect(res.code).toBe(4);
    expect(JSON.parse(res.stderr)).toMatchObject({ error: 'login_failed', message: expect.stringMatching(/access_denied/) });
    expect((await agentRun(['token', '--profile', 'denied'], env)).code).toBe(4);
  });

  it('a second --no-wait for the same profile replaces the first', async () => {
    const env = userEnv();
    const first = await noWaitLogin(env);
    const firstPid = pendingRecord(env).listenerPid;
    const second = await noWaitLogin(env);
    expect(second.res.stderr).toMatch(/earlier pending login was replaced/);
    expect(processAlive(firstPid)).toBe(false);
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

async function login(env: Env, sb = sandbox, extra: string[] = []) {
  expectSuccess(await agentRun(['login', '--base-url', sb.baseUrl, ...extra], env));
}

const refreshGrants = () => sandbox.events.filter((e) => e.type === 'token' && e.grant_type === 'refresh_token').length;

describe('sessions for scripts', () => {
  it('token --min-ttl refreshes a token that would not last, and exits 4 when no token can', async () => {
    const env = userEnv();
    await login(env);
    const first = await agentRun(['token', '--json', '--min-ttl', '600'], env);
    expectSuccess(first);
    const firstToken = JSON.parse(first.stdout) as { access_token: string; expires_at: number };
    expect(firstToken.expires_at - Date.now() / 1000).toBeGreaterThan(600);

    // 300 s left: plenty for the usual margin (60 s), not enough for --min-ttl 600.
    await expire(env, { expiresIn: 300 });
    const before = refreshGrants();
    const plain = await agentRun(['token'], env);
    expect(plain.stdout.trim()).toBe(firstToken.access_token);
    expect(refreshGrants()).toBe(before);
    const second = await agentRun(['token', '--json', '--min-ttl', '600'], env);
    expectSuccess(second);
    const secondToken = JSON.parse(second.stdout) as { access_token: string; expires_at: number };
    expect(secondToken.access_token).not.toBe(firstToken.access_token);
    expect(secondToken.expires_at - Date.now() / 1000).toBeGreaterThan(600);
    expect(refreshGrants()).toBe(before + 1);

    const tooLong = await agentRun(['token', '--json', '--min-ttl', '7200'], env);
    expect(tooLong.code).toBe(4);
    expect(tooLong.stdout).toBe('');
    expect(JSON.parse(tooLong.stderr)).toMatchObject({ error: 'ttl_unavailable', message: expect.stringMatching(/no access token valid for 7200 seconds/) });
  });

  it('a refused refresh makes token and whoami exit 4 and status exit 1, without asking the server again', async () => {
    const env = userEnv();
    await login(env);
    const status = await agentRun(['status', '--json'], env);
    expectSuccess(status);
    const { client_id: clientId } = (JSON.parse(status.stdout) as Array<{ client_id: string }>)[0];
    const stored = JSON.parse((await keychainEntry(env))!) as { refreshToken: string; accessToken: string };
    // The server ends the grant behind the CLI's back.
    const res = await fetch(`${sandbox.issuer}/api/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: stored.refreshToken, token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(res.status).toBe(200);
    await expire(env);

    const refused = await agentRun(['token'], env);
    expect(refused.code).toBe(4);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/refused to renew the session/);
    expect(refused.stderr).toMatch(/school login/);

    const asked = sandbox.events.length;
    const again = await agentRun(['token', '--json'], env);
    expect(again.code).toBe(4);
    expect(JSON.parse(again.stderr)).toMatchObject({ error: 'refresh_refused', hint: expect.stringMatching(/school login/) });
    expect((await agentRun(['whoami'], env)).code).toBe(4);
    const report = await agentRun(['status', '--json'], env);
    expect(report.code).toBe(1);
    expect((JSON.parse(report.stdout) as Array<{ problem?: string }>)[0].problem).toMatch(/counts as logged out/);
    expect(sandbox.events.length).toBe(asked);

    // The next login ends it.
    await login(env);
    expectSuccess(await agentRun(['token'], env));
    expectSuccess(await agentRun(['status'], env));
  });
});

describe('logout for scripts', () => {
  it('--json says what was done, never a secret', async () => {
    const env = userEnv();
    await login(env);
    const token = (await agentRun(['token'], env)).stdout.trim();
    const res = await agentRun(['logout', '--json'], env);
    expectSuccess(res);
    expect(JSON.parse(res.stdout)).toEqual({
      profiles: [{ profile: 'default', base_url: sandbox.baseUrl, revocation: 'revoked', local_secrets_removed: true, client_secret_removed: false }],
      pending_logins_cancelled: [],
      ci_job_states_removed: 0,
    });
    expect(res.stdout + res.stderr).not.toContain(token);
    expect((await sandbox.introspect(token)).active).toBe(false);
  });

  it('exits 0 with a warning when the server has no revocation endpoint', async () => {
    const bare = await startSandbox({ quiet: true, revocation: false });
    try {
      const env = userEnv();
      await login(env, bare);
      const res = await agentRun(['logout', '--json'], env);
      expectSuccess(res);
      expect(res.stderr).toMatch(/Warning: the server has no revocation endpoint/);
      expect(JSON.parse(res.stdout).profiles[0].revocation).toBe('unsupported');
      expect(await keychainEntry(env)).toBeNull();
    } finally {
      await bare.close();
    }
  });

  it("forgets a confidential client's secret", async () => {
    const env = userEnv();
    await login(env, sandbox, ['--confidential']);
    const { client_id: clientId } = (JSON.parse((await agentRun(['status', '--json'], env)).stdout) as Array<{ client_id: string }>)[0];
    const account = `client:${sandbox.issuer}#${clientId}`;
    expect(await keychainSecret(account)).toMatch(/\S{20,}/);
    const res = await agentRun(['logout', '--json'], env);
    expectSuccess(res);
    expect(JSON.parse(res.stdout).profiles[0].client_secret_removed).toBe(true);
    expect(await keychainSecret(account)).toBeNull();
    expect(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'config.json'), 'utf8')).not.toContain(clientId);
  });

  it('without the keychain it holds the tokens in, says one thing once, naming the entry, and finishes later', async () => {
    const env = userEnv();
    await login(env);
    const account = profileAccount(env);
    const res = await agentRun(['logout'], withoutKeychain(env));
    expect(res.code).toBe(1);
    const lines = res.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`service "school-cli" and account "${account}"`);
    expect(await keychainSecret(account)).not.toBeNull();
    // With the keychain back, logout finishes the job.
    const later = await agentRun(['logout'], env);
    expectSuccess(later);
    expect(later.stderr).toMatch(/the server revoked the tokens/);
    expect(await keychainSecret(account)).toBeNull();
  });

  it('logout --all removes the state of headless CI jobs', async () => {
    const env = userEnv();
    await login(env, sandbox, ['--profile', 'ci-job']);
    const seed = JSON.parse(expectSuccess(await agentRun(['token', '--profile', 'ci-job', '--for-ci', '--json'], env)).stdout) as Record<string, string>;
    const ci = { ...env, ...seed, CI: 'true' };
    expectSuccess(await agentRun(['token'], ci));
    const stateDir = join(env.SCHOOL_CONFIG_DIR, 'state');
    const markers = readdirSync(stateDir).filter((n) => /^ci-.*\.json$/.test(n));
    expect(markers).toHaveLength(1);
    const jobAccount = `ci:${markers[0].slice('ci-'.length, -'.json'.length)}`;
    expect(await keychainSecret(jobAccount)).toMatch(/refreshToken/);

    const res = await agentRun(['logout', '--all', '--json'], env);
    expectSuccess(res);
    expect(JSON.parse(res.stdout)).toMatchObject({ ci_job_states_removed: 1 });
    expect(readdirSync(stateDir).filter((n) => /^ci-/.test(n))).toEqual([]);
    expect(await keychainSecret(jobAccount)).toBeNull();
  });
});
