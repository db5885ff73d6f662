import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { driveLogin } from '@school/sandbox/browser-driver';
import { startSandbox } from '@school/sandbox';
import { AUTH_URL_LINE, runSchool, shellCommand, startSchool, stored as storedTokens, userEnv, useSandbox } from './harness.js';

const sandbox = useSandbox();

/** Whether the listener is up; asks for another path (404), since /callback is accepted only once. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    request({ host: '127.0.0.1', port, path: '/probe' }, () => resolve(true))
      .on('error', () => resolve(false))
      .end();
  });
}

describe('school login, continued', () => {
  it('stops cleanly on Ctrl-C: exit 130 and the listener closed', async () => {
    const env = userEnv();
    const run = startSchool(['login', '--base-url', sandbox.baseUrl, '--no-browser'], env);
    const [, url] = await run.waitForStderr(AUTH_URL_LINE);
    const port = Number(new URL(new URL(url).searchParams.get('redirect_uri')!).port);
    expect(await canConnect(port)).toBe(true);
    run.child.kill('SIGINT');
    const res = await run.done;
    expect(res.code).toBe(130);
    expect(res.stderr).toMatch(/Interrupted/);
    expect(await canConnect(port)).toBe(false);
  });

  it('exits 143 on SIGTERM, the listener closed', async () => {
    const run = startSchool(['login', '--base-url', sandbox.baseUrl, '--no-browser'], userEnv());
    const [, url] = await run.waitForStderr(AUTH_URL_LINE);
    const port = Number(new URL(new URL(url).searchParams.get('redirect_uri')!).port);
    run.child.kill('SIGTERM');
    expect((await run.done).code).toBe(143);
    expect(await canConnect(port)).toBe(false);
  });

  it.each([
    ['that reports no width', ''],
    ['80 columns wide', 'stty cols 80 rows 24; '],
  ])('waits on a terminal %s and still gives up at --timeout', async (_name, setup) => {
    const { spawn } = await import('node:child_process');
    const { SCHOOL_BIN } = await import('./harness.js');
    const env = userEnv({ BROWSER: '/bin/true' }); // opens nothing: the spinner runs until the timeout
    const command = `${setup}${shellCommand(process.execPath, SCHOOL_BIN, 'login', '--base-url', sandbox.baseUrl, '--timeout', '2')}`;
    const started = Date.now();
    const { code, screen } = await new Promise<{ code: number | null; screen: string }>((resolve) => {
      // Its own process group, so a hung CLI under `script` can be killed along with it.
      const child = spawn('script', ['-qec', command, '/dev/null'], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      setTimeout(() => child.stdin.write('typed while waiting\n'), 500);
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
      child.on('close', (c) => {
        clearTimeout(killer);
        resolve({ code: c, screen: out });
      });
    });
    expect(screen).toContain('No sign-in response arrived within 2 seconds');
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    if (setup) expect(screen).toContain('\u001b[?25l'); // the spinner did run (it hides the cursor)
  });

  it('prints the URL and keeps waiting when the browser cannot be started', async () => {
    const env = userEnv({ BROWSER: '/nonexistent/browser --flag' });
    const run = startSchool(['login', '--base-url', sandbox.baseUrl], env);
    const [, url] = await run.waitForStderr(AUTH_URL_LINE);
    expect(run.stderr()).toMatch(/Could not open a browser \(\/nonexistent\/browser: ENOENT\)/);
    await driveLogin(url);
    const res = await run.done;
    expect(res.code).toBe(0);
  });

  it('says at once that a browser command exited non-zero, with its status, and keeps waiting with the URL', async () => {
    const env = userEnv({ BROWSER: shellCommand(process.execPath, '-e', 'process.exit(3)') });
    const run = startSchool(['login', '--base-url', sandbox.baseUrl], env);
    const [, url] = await run.waitForStderr(AUTH_URL_LINE);
    const started = Date.now();
    await run.waitForStderr(/The browser command failed: .* exited with status 3\. Open the URL above to sign in; still waiting\./, 5_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    await driveLogin(url);
    const res = await run.done;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('Logged in as Ada Lovelace');
  });

  it('makes no failing grant at the server, on a first login or one that reuses the saved client', async () => {
    const env = userEnv();
    const failedGrants = () => sandbox.events.filter((e) => e.type === 'token' && e.ok !== true);
    const tokenRequests = () => sandbox.events.filter((e) => e.type === 'token').length;
    const before = { failed: failedGrants().length, tokens: tokenRequests(), registrations: sandbox.events.filter((e) => e.type === 'register').length };
    for (let login = 1; login <= 2; login++) {
      const res = await runSchool(['login', '--base-url', sandbox.baseUrl], env);
      expect(res.code, res.stderr).toBe(0);
      expect(failedGrants().length - before.failed).toBe(0);
      // One grant per login: the code exchange, nothing sent to test the client first.
      expect(tokenRequests() - before.tokens).toBe(login);
    }
    expect(sandbox.events.filter((e) => e.type === 'register').length - before.registrations).toBe(1);
  });

  it('registers again when the server no longer knows the saved client', async () => {
    const env = userEnv();
    const first = await startSandbox({ quiet: true });
    const port = Number(new URL(first.baseUrl).port);
    expect((await runSchool(['login', '--base-url', first.baseUrl], env)).code).toBe(0);
    await first.close();
    // The same address, a server with no memory of the client.
    const second = await startSandbox({ quiet: true, port });
    try {
      const res = await runSchool(['login'], env);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain('no longer knows the saved client registration');
      expect(second.events.filter((e) => e.type === 'register')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('redacts every secret in a --verbose login, confidential client included', async () => {
    const env = userEnv();
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--confidential', '--verbose'], env);
    expect(res.code).toBe(0);
    expect(res.stderr).toMatch(/\* POST http:\/\/127\.0\.0\.1:\d+\/api\/oauth\/token/);
    expect(res.stderr).toMatch(/code=\[REDACTED\]/);
    expect(res.stderr).toMatch(/code_verifier=\[REDACTED\]/);
    expect(res.stderr).toMatch(/client_secret=\[REDACTED\]/);
    expect(res.stderr).toMatch(/"client_secret":"\[REDACTED\]"/);
    const stored = await storedTokens(env);
    for (const secret of [stored.accessToken, stored.refreshToken, stored.clientSecret]) {
      expect(secret).toBeTruthy();
      expect(res.stderr).not.toContain(secret);
    }
  });

  it('refuses a client metadata URL where the server does not support it', async () => {
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--client-metadata-url', 'https://tools.example/school.json'], userEnv());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('does not support client ID metadata documents');
  });
});
