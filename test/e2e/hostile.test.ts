// The CLI against a hostile server: the sandbox behind a fault-injecting proxy (HTTP_PROXY) that
// each test tells how to misbehave. What must hold whatever the server does: nothing raw reaches
// the terminal, nothing secret leaks, every failure is one clear line with the right exit code,
// and nothing is lost (stored credentials survive a failed refresh).
import { spawn } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type HostileProxy, formOf, hostileProxy, rewriteJson } from '../helpers/hostile-proxy.js';
import { type Env, type RunResult, SCHOOL_BIN, expectSuccess, expire, login as loginTo, runSchool, shellCommand, startSchool, stored, userEnv, useSandbox } from './harness.js';

// Control characters, DEL, C1, bidi controls and invisible format characters: none may reach a terminal.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const EVIL = '\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\u202egnp.exe\u009b31m\u2066x\u2069\u200f';
const FORGED_LINE = '\nschool: Logged in as admin on https://school.example.';

const sandbox = useSandbox();
let proxy: HostileProxy;

beforeAll(async () => {
  proxy = await hostileProxy();
});
afterAll(async () => {
  await proxy?.close();
});
afterEach(() => proxy.clear());

const P = {
  prm: /^\/\.well-known\/oauth-protected-resource$/,
  asMetadata: /^\/\.well-known\/(oauth-authorization-server|openid-configuration)/,
  register: /^\/api\/oauth\/register$/,
  token: /^\/api\/oauth\/token$/,
  revoke: /^\/api\/oauth\/revoke$/,
  openapi: /^\/openapi\.json$/,
  me: /^\/api\/me$/,
};

const grantIs = (grant: string) => (req: { body: string }) => new URLSearchParams(req.body).get('grant_type') === grant;

function hostileEnv(extra: Env = {}) {
  return userEnv({ ...proxy.env, ...extra });
}

/** Nothing raw on stderr (nor on stdout, unless it carries data), no forged line, no secret. */
function expectClean(res: RunResult, secrets: string[] = [], stdoutIsData = false): void {
  expect(res.stderr).not.toMatch(UNSAFE);
  if (!stdoutIsData) expect(res.stdout).not.toMatch(UNSAFE);
  expect(res.stderr).not.toMatch(/^school: Logged in as admin/m);
  for (const s of secrets) {
    expect(res.stderr).not.toContain(s);
    if (!stdoutIsData) expect(res.stdout).not.toContain(s);
  }
}

/** One error line, `school: …`, and the expected exit code. */
function expectOneLineError(res: RunResult, code: number, pattern?: RegExp): void {
  expect(res.code, res.stderr).toBe(code);
  const errors = res.stderr.split('\n').filter((l) => l.startsWith('school: '));
  expect(errors, res.stderr).toHaveLength(1);
  if (pattern) expect(errors[0]).toMatch(pattern);
  expect(res.stderr).not.toMatch(/\n\s+at .*:\d+:\d+/); // no stack trace
}

/** A login to this file's sandbox, through the hostile proxy when the environment names it. */
const login = (env: Env, extra: string[] = []): Promise<RunResult> => loginTo(env, sandbox, extra);

describe('server text never reaches the terminal raw', () => {
  it('a granted scope and a client id full of escapes are shown escaped by status', async () => {
    const env = hostileEnv();
    proxy.inject({
      path: P.token,
      when: grantIs('authorization_code'),
      action: { kind: 'rewrite', answer: rewriteJson((doc) => ({ ...doc, scope: `${doc.scope} evil:read${EVIL}${FORGED_LINE}` })) },
    });
    expectClean(await login(env));
    // The client id a server registered (kept in the config) is as hostile as the server.
    const { readFileSync, writeFileSync } = await import('node:fs');
    const configFile = `${env.SCHOOL_CONFIG_DIR}/config.json`;
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    config.profiles.default.clientId = `cid${EVIL}${FORGED_LINE}`;
    writeFileSync(configFile, JSON.stringify(config));

    const status = await runSchool(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expectClean(status);
    expect(status.stdout).toContain('\\u{1b}]52;c;');
    expect(status.stdout).toContain('\\u{202e}gnp.exe');
    // Each field on one line: the forged "school:" line is text inside the Scopes line.
    expect(status.stdout.split('\n').filter((l) => l.includes('Logged in as admin'))).toEqual([expect.stringMatching(/^ {2}Client: /), expect.stringMatching(/^ {2}Scopes: /)]);
    // JSON keeps the exact value, escaped by JSON itself.
    const json = await runSchool(['status', '--json'], env);
    expect(JSON.parse(json.stdout)[0].client_id).toBe(`cid${EVIL}${FORGED_LINE}`);
    expect(json.stdout).not.toMatch(UNSAFE); // C1 and bidi characters escaped by the JSON writer too
  });

  it('a registered client_id full of escapes is shown escaped in the --verbose login and its messages', async () => {
    const env = hostileEnv();
    proxy.inject({ path: P.register, action: { kind: 'rewrite', answer: rewriteJson((doc) => ({ ...doc, client_id: `${doc.client_id}${EVIL}${FORGED_LINE}` })) } });
    // Nobody completes the sign-in: the client id is only shown, and the login gives up after its timeout.
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--no-browser', '--timeout', '2', '--verbose'], env);
      expect(res.code).toBe(1);
      expectClean(res);
      // Shown, escaped (by JSON in the traced body, by the sanitizer elsewhere).
      expect(res.stderr).toMatch(/"client_id":"[\w-]+\\u001b\]52;c;/);
      expect(res.stderr).toContain('\\u{202e}gnp.exe');
    }
  });

  it('/openapi.json paths, summaries and scopes are escaped in call --list', async () => {
    const env = hostileEnv();
    proxy.inject({
      path: P.openapi,
      action: {
        kind: 'rewrite',
        answer: rewriteJson((doc) => {
          const paths = doc.paths as Record<string, unknown>;
          paths[`/api/evil${EVIL}`] = { get: { summary: `Evil${EVIL}${FORGED_LINE}`, security: [{ oauth: [`evil:read${EVIL}`] }] } };
        }),
      },
    });
    const res = await runSchool(['call', '--list', '--base-url', sandbox.baseUrl], env);
    expect(res.code, res.stderr).toBe(0);
    expectClean(res);
    expect(res.stdout).toContain('/api/evil\\u{1b}]52;c;');
    expect(res.stdout).toContain('/api/courses');
    expect(res.stdout.split('\n').filter((l) => l.includes('Logged in as admin'))).toHaveLength(1);
    // Completion offers none of it: the name is not plain.
    const complete = await runSchool(['__complete', 'paths', '--base-url', sandbox.baseUrl], env);
    expect(complete.stdout).toContain('/api/courses');
    expect(complete.stdout).not.toContain('evil');
  });

  it('an HTTP reason phrase and a text body are escaped in the error and the --verbose trace; piped data stays byte-exact', async () => {
    const env = hostileEnv();
    const body = `plain${EVIL}${FORGED_LINE}\n`;
    proxy.inject({
      path: P.me,
      action: { kind: 'respond', answer: () => ({ status: 418, reason: `Teapot${EVIL}`, headers: { 'content-type': 'text/plain', 'x-note': `n${'\u202e'}` }, body }) },
    });
    const res = await runSchool(['call', '/api/me', '--anonymous', '--verbose', '--base-url', sandbox.baseUrl], env);
    expectOneLineError(res, 1, /^school: HTTP 418 Teapot/);
    expectClean(res, [], true);
    // The body is data: a script reading stdout gets exactly the bytes the server sent.
    expect(res.stdout).toBe(body);
    expect(res.stderr).toContain('< plain\\u{1b}]52;c;');
  });

  it('an access token with an escape sequence in it is refused at login, never stored or printed', async () => {
    const env = hostileEnv();
    proxy.inject({ path: P.token, action: { kind: 'rewrite', answer: rewriteJson((doc) => ({ ...doc, access_token: `${doc.access_token}${EVIL}` })) } });
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl], env);
    expectOneLineError(res, 1, /issued an access token with characters an HTTP header cannot carry/);
    expectClean(res);
    expect((await runSchool(['token'], env)).code).toBe(4);
  });

  it('a revocation error_description is escaped and kept on one line by logout', async () => {
    const env = hostileEnv();
    await login(env);
    proxy.inject({
      path: P.revoke,
      action: {
        kind: 'respond',
        answer: () => ({ status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'invalid_request', error_description: `nope${EVIL}${FORGED_LINE}` }) }),
      },
    });
    const res = await runSchool(['logout'], env);
    expectOneLineError(res, 1, /did not confirm the revocation/);
    expectClean(res);
    expect(res.stderr).toContain('nope\\u{1b}]52;c;');
    expect(res.stderr.split('\n').filter((l) => l.includes('Logged in as admin'))).toHaveLength(1);
  });
});

describe('secrets stay secret when the server repeats them', () => {
  it('a revocation error echoing the token is redacted in logout', async () => {
    const env = hostileEnv();
    await login(env);
    const { refreshToken, accessToken } = await stored(env);
    proxy.inject({
      path: P.revoke,
      action: {
        kind: 'respond',
        answer: (req) => ({
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: 'invalid_request', error_description: `token ${formOf(req).get('token')} is not ours` }),
        }),
      },
    });
    const res = await runSchool(['logout', '--verbose'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('is not ours');
    expectClean(res, [refreshToken, accessToken]);
  });

  it('tokens repeated in a header and a non-standard field are redacted in the --verbose trace', async () => {
    const env = hostileEnv();
    proxy.inject({
      path: P.token,
      action: {
        kind: 'rewrite',
        answer: (a, req) => {
          const doc = JSON.parse(a.body.toString()) as Record<string, string>;
          const echo = `${doc.access_token} ${doc.refresh_token ?? ''}`;
          return {
            ...a,
            headers: { ...a.headers, 'x-debug': echo, 'x-session-token': doc.access_token, 'set-cookie': `sid=${doc.access_token}` },
            body: JSON.stringify({ ...doc, debug: { echo, note: doc.refresh_token }, grant: formOf(req).get('grant_type') }),
          };
        },
      },
    });
    const res = await login(env, ['--verbose']);
    const { accessToken, refreshToken } = await stored(env);
    expect(res.stderr).toContain('x-debug: [REDACTED]');
    expectClean(res, [accessToken, refreshToken]);
    // The same for a refresh.
    await expire(env);
    const refreshed = await runSchool(['token', '--verbose'], env);
    const after = await stored(env);
    expect(refreshed.stdout).toBe(`${after.accessToken}\n`);
    expectClean(refreshed, [after.accessToken, after.refreshToken], true);
  });
});

describe('faults: one clear line, the right exit code, nothing lost', () => {
  let env: ReturnType<typeof hostileEnv>;
  beforeAll(async () => {
    env = hostileEnv();
    await login(env);
  });

  const refreshFaults: Array<[string, Parameters<HostileProxy['inject']>[0]['action'], RegExp]> = [
    ['a 500', { kind: 'respond', answer: () => ({ status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' }) }, /./],
    ['a 503', { kind: 'respond', answer: () => ({ status: 503, headers: { 'content-type': 'text/html' }, body: '<html>down</html>' }) }, /./],
    ['HTML instead of JSON', { kind: 'respond', answer: () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><p>Sign in</p>' }) }, /./],
    ['a connection reset before the server saw it', { kind: 'reset', after: 'nothing' }, /connection reset|socket hang up|Could not reach/i],
  ];

  it.each(refreshFaults)('a refresh answered with %s fails in one line and keeps the stored credentials', async (_name, action, pattern) => {
    const before = await expire(env);
    proxy.inject({ path: P.token, when: grantIs('refresh_token'), action });
    const res = await runSchool(['token'], env);
    expect([1, 4]).toContain(res.code);
    expectOneLineError(res, res.code!, pattern);
    expectClean(res, [before.accessToken, before.refreshToken]);
    expect(res.stdout).toBe('');
    expect(await stored(env)).toEqual(before);
    proxy.clear();
    // Still logged in: the next refresh works.
    const ok = expectSuccess(await runSchool(['token'], env));
    expect(ok.stdout.trim()).not.toBe(before.accessToken);
  });

  it.each([
    ['truncated JSON', { kind: 'truncate', bytes: 25 } as const],
    ['a connection reset', { kind: 'reset', after: 'upstream' } as const],
  ])('a refresh whose answer is lost after the server acted (%s): one line, the stored entry still whole', async (_name, action) => {
    const mine = hostileEnv();
    await login(mine);
    const before = await expire(mine);
    proxy.inject({ path: P.token, when: grantIs('refresh_token'), times: 1, action });
    const res = await runSchool(['token'], mine);
    expectOneLineError(res, 1);
    expectClean(res, [before.accessToken, before.refreshToken]);
    // The server may have rotated the refresh token, but what is stored is the last set the CLI
    // knew, never a torn or emptied one.
    expect(await stored(mine)).toEqual(before);
  });

  it('discovery answered with HTML, or a reset, fails login in one line', async () => {
    const fresh = hostileEnv();
    proxy.inject({ path: P.asMetadata, action: { kind: 'respond', answer: () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>hi</html>' }) } });
    const html = await runSchool(['login', '--base-url', sandbox.baseUrl], fresh);
    expectOneLineError(html, 1);
    expectClean(html);
    proxy.clear();
    proxy.inject({ path: P.prm, action: { kind: 'reset', after: 'nothing' } });
    const reset = await runSchool(['login', '--base-url', sandbox.baseUrl], fresh);
    expectOneLineError(reset, 1, /connection reset|socket hang up|Could not reach/i);
  });

  it('a connection reset in the middle of the code exchange fails login in one line, storing nothing', async () => {
    const fresh = hostileEnv();
    proxy.inject({ path: P.token, when: grantIs('authorization_code'), action: { kind: 'reset', after: 'upstream' } });
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl], fresh);
    expectOneLineError(res, 1);
    expectClean(res);
    const status = await runSchool(['status', '--json'], fresh);
    expect(JSON.parse(status.stdout || '[]')).toEqual([]);
  });

  it('a connection reset in the middle of a revocation: exit 1, one line, the local credentials gone', async () => {
    const mine = hostileEnv();
    await login(mine);
    proxy.inject({ path: P.revoke, action: { kind: 'reset', after: 'upstream' } });
    const res = await runSchool(['logout'], mine);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/did not confirm the revocation/);
    expectClean(res);
    expect(JSON.parse((await runSchool(['status', '--json'], mine)).stdout)).toEqual([]);
  });
});

describe('resource limits', () => {
  it('a 240 MiB metadata document is refused after 1 MiB, without the memory to hold it', async () => {
    for (const declareLength of [false, true]) {
      const env = hostileEnv();
      const before = proxy.streamedBytes();
      proxy.inject({ path: P.asMetadata, action: { kind: 'stream', status: 200, contentType: 'application/json', bytes: 240 * 1024 * 1024, declareLength } });
      const res = await new Promise<RunResult & { maxRssKb: number }>((resolve) => {
        const child = spawn('/usr/bin/time', ['-v', process.execPath, SCHOOL_BIN, 'login', '--base-url', sandbox.baseUrl], { env: env as NodeJS.ProcessEnv });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('close', (code) => {
          const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN);
          resolve({ code, stdout, stderr: stderr.replace(/\n\s*Command being timed:[\s\S]*$/, '\n').replace(/\tCommand being timed:[\s\S]*$/, ''), maxRssKb: rss });
        });
      });
      proxy.clear();
      expect(res.stderr).toMatch(/larger than 1 MiB; stopped reading it/);
      expect(res.code).toBe(1);
      // Far below the document: Node itself takes about 50-100 MB here.
      expect(res.maxRssKb).toBeGreaterThan(0);
      expect(res.maxRssKb).toBeLessThan(200 * 1024);
      // The proxy did not have to produce the whole document: reading stopped early.
      expect(proxy.streamedBytes() - before).toBeLessThan(64 * 1024 * 1024);
    }
  });

  it('an absurd expires_in (1e300) is clamped: status and token --json still work', async () => {
    const env = hostileEnv();
    proxy.inject({ path: P.token, action: { kind: 'rewrite', answer: rewriteJson((doc) => ({ ...doc, expires_in: 1e300 })) } });
    await login(env);
    proxy.clear();
    const status = await runSchool(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).not.toMatch(/Invalid time value/);
    const year = new Date().getUTCFullYear();
    expect(status.stdout).toMatch(new RegExp(`Expires: +(${year}|${year + 1})-`));
    const token = JSON.parse(expectSuccess(await runSchool(['token', '--json'], env)).stdout);
    expect(token.expires_at).toBeLessThanOrEqual(Date.now() / 1000 + 366 * 24 * 3600);
  });

  it('a login "did you mean" never suggests a scope that is shell syntax', async () => {
    const env = hostileEnv();
    proxy.inject({
      path: P.asMetadata,
      action: { kind: 'rewrite', answer: rewriteJson((doc) => ({ ...doc, scopes_supported: ['openid', 'courses:read;touch$IFS/tmp/pwned', 'courses:re$(id)', `courses:rea${EVIL}`] })) },
    });
    // The resource's own list counts too: it names the same hostile scopes.
    proxy.inject({
      path: P.prm,
      action: { kind: 'rewrite', answer: rewriteJson((doc) => ({ ...doc, scopes_supported: ['courses:read;touch$IFS/tmp/pwned', 'courses:re$(id)'] })) },
    });
    const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--scope', 'courses:reed'], env);
    expect(res.code).toBe(2);
    expectClean(res);
    expect(res.stderr).not.toMatch(/[;$]|pwned|\(id\)/);
    expect(res.stderr).not.toContain('Did you mean');
  });
});

describe('hostile neighbours: the config dir and credential file are checked like ~/.ssh', () => {
  it('makes a dir of ours that others can write, and a credential file others can read, private, saying so once', async () => {
    const { chmodSync, mkdirSync, statSync, writeFileSync } = await import('node:fs');
    const env = userEnv();
    mkdirSync(env.SCHOOL_CONFIG_DIR, { recursive: true });
    chmodSync(env.SCHOOL_CONFIG_DIR, 0o777);
    const credentials = `${env.SCHOOL_CONFIG_DIR}/credentials.json`;
    writeFileSync(credentials, '{"version":1,"entries":{}}');
    chmodSync(credentials, 0o644);
    const first = await runSchool(['status'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`Note: ${env.SCHOOL_CONFIG_DIR} was writable by other users (mode 777); made it private (mode 700).`);
    expect(first.stderr).toContain(`Note: ${credentials} was readable by other users (mode 644); made it private (mode 600).`);
    expect(statSync(env.SCHOOL_CONFIG_DIR).mode & 0o777).toBe(0o700);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    const second = await runSchool(['status'], env);
    expect(second.stderr).not.toContain('Note:');
  });

  // The CLI checks against the user running it, so a file must really belong to another user.
  it.runIf(process.getuid?.() === 0)('refuses a config file or dir another user owns, naming the path and the fix (as root only: giving a file to another user needs root)', async () => {
    const { chownSync, mkdirSync, writeFileSync } = await import('node:fs');
    const env = userEnv();
    mkdirSync(env.SCHOOL_CONFIG_DIR, { recursive: true, mode: 0o700 });
    const configFile = `${env.SCHOOL_CONFIG_DIR}/config.json`;
    // Another user's config could name another origin for the profile and receive the token.
    writeFileSync(
      configFile,
      JSON.stringify({ version: 1, profiles: { default: { baseUrl: 'http://127.0.0.1:9', issuer: 'http://127.0.0.1:9', clientId: 'x', authMethod: 'none', storage: 'file' } }, clients: {} }),
      { mode: 0o600 },
    );
    chownSync(configFile, 12345, 12345);
    const res = await runSchool(['whoami'], env);
    expectOneLineError(res, 1, new RegExp(`^school: The file ${configFile} belongs to another user \\(uid 12345\\); refusing to use it\\.$`));
    expect(res.stderr).toContain(`chown -R "$(id -un)" '${configFile}'`);
    const json = await runSchool(['status', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr).error).toBe('unsafe_permissions');
    chownSync(configFile, 0, 0);
    chownSync(env.SCHOOL_CONFIG_DIR, 12345, 12345);
    const dir = await runSchool(['status'], env);
    expectOneLineError(dir, 1, /directory .* belongs to another user \(uid 12345\)/);
  });
});

describe('a refresh in flight is never lost', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** When Alan's code exchange (after his sign-in) has succeeded at the server. */
  const alanExchanged = () => {
    const signIn = sandbox.events.find((e) => e.type === 'login' && e.username === 'alan');
    return Boolean(signIn && sandbox.events.some((e) => e.at >= signIn.at && e.type === 'token' && e.grant_type === 'authorization_code' && e.ok === true));
  };

  it('Ctrl-C pressed three times during a sent refresh waits for its answer, says so once, then exits 130', async () => {
    const env = hostileEnv();
    await login(env);
    const before = await expire(env);
    const held: Answer[] = [];
    const HOLD_MS = 2500;
    proxy.inject({ path: P.token, when: grantIs('refresh_token'), action: { kind: 'hold', until: () => sleep(HOLD_MS), held } });
    const run = startSchool(['token'], env);
    while (held.length === 0) await sleep(20); // the server has rotated the refresh token; its answer is on hold
    const heldAt = Date.now();
    for (let i = 0; i < 3; i++) {
      run.child.kill('SIGINT');
      await sleep(150);
    }
    const res = await run.done;
    expect(res.code, res.stderr).toBe(130);
    expect(Date.now() - heldAt).toBeGreaterThanOrEqual(HOLD_MS - 200); // it waited for the answer
    expect(res.stdout).toBe('');
    expect(res.stderr.match(/Finishing the token refresh/g)).toHaveLength(1);
    // The rotated tokens were stored: the old refresh token is gone, the new one works.
    const rotated = JSON.parse(held[0]!.body.toString()) as { refresh_token: string };
    const after = await stored(env);
    expect(after.refreshToken).toBe(rotated.refresh_token);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    await expire(env);
    const next = await runSchool(['token'], env);
    expectSuccess(next);
  });

  it('a hang-up (SIGHUP) during a sent refresh waits for its answer, stores it, then exits 129', async () => {
    const env = hostileEnv();
    await login(env);
    const before = await expire(env);
    const held: Answer[] = [];
    proxy.inject({ path: P.token, when: grantIs('refresh_token'), action: { kind: 'hold', until: () => sleep(1500), held } });
    const run = startSchool(['token'], env);
    while (held.length === 0) await sleep(20);
    run.child.kill('SIGHUP');
    const res = await run.done;
    expect(res.code, res.stderr).toBe(129);
    const rotated = JSON.parse(held[0]!.body.toString()) as { refresh_token: string };
    const after = await stored(env);
    expect(after.refreshToken).toBe(rotated.refresh_token);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });

  it('closing the terminal during a sent refresh keeps the rotated session', async () => {
    // A real terminal: `school token` runs on the pseudo-terminal of `script`, which is then killed,
    // so the kernel hangs the terminal up (SIGHUP, and EIO for any later write to it).
    const env = hostileEnv();
    await login(env);
    const before = await expire(env);
    const held: Answer[] = [];
    proxy.inject({ path: P.token, when: grantIs('refresh_token'), action: { kind: 'hold', until: () => sleep(1500), held } });
    const command = `exec ${shellCommand(process.execPath, SCHOOL_BIN, 'token')}`;
    const terminal = spawn('script', ['-qec', command, '/dev/null'], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    terminal.stdout.on('data', () => undefined);
    try {
      const deadline = Date.now() + 20_000;
      while (held.length === 0 && Date.now() < deadline) await sleep(20);
      expect(held.length).toBe(1);
      terminal.kill('SIGKILL');
      const rotated = JSON.parse(held[0]!.body.toString()) as { refresh_token: string };
      // The CLI, left without a terminal, stores the answer once it comes (after the hold).
      let after = await stored(env);
      for (let waited = 0; after.refreshToken !== rotated.refresh_token && waited < 8_000; waited += 100) {
        await sleep(100);
        after = await stored(env);
      }
      expect(after.refreshToken).toBe(rotated.refresh_token);
      expect(after.refreshToken).not.toBe(before.refreshToken);
    } finally {
      try {
        process.kill(-terminal.pid!, 'SIGKILL');
      } catch {
        // the whole group has exited
      }
    }
  });

  it('a login while a refresh is in flight waits for it, keeps the new login, and revokes the grant the refresh rotated', async () => {
    const env = hostileEnv();
    await login(env); // Ada
    await expire(env);
    const held: Answer[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((r) => (release = r));
    proxy.inject({ path: P.token, when: grantIs('refresh_token'), action: { kind: 'hold', until: () => released, held } });
    const refresh = startSchool(['token'], env);
    while (held.length === 0) await sleep(20);
    // Alan signs in on the same profile meanwhile (without the proxy: his requests are not held).
    const relogin = startSchool(['login', '--base-url', sandbox.baseUrl], { ...env, HTTP_PROXY: undefined, NO_PROXY: undefined, SANDBOX_USER: 'alan', SANDBOX_PASSWORD: 'turing' });
    // The refresh's answer arrives once the login has had every chance to store its tokens first.
    await Promise.race([
      relogin.done,
      (async () => {
        while (!alanExchanged()) await sleep(20);
        await sleep(3000);
      })(),
    ]);
    release();
    const [refreshed, loggedIn] = await Promise.all([refresh.done, relogin.done]);
    expectSuccess(refreshed);
    expect(loggedIn.code, loggedIn.stderr).toBe(0);
    expect(loggedIn.stderr).toContain('Logged in as Alan Turing');

    // The profile and its tokens are Alan's, and agree with each other.
    const status = await runSchool(['status', '--json'], env);
    expect(JSON.parse(status.stdout)[0].user.sub).toBe('usr_1912_alan');
    const who = await runSchool(['whoami', '--json'], env);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout).sub).toBe('usr_1912_alan');
    // The grant the refresh rotated (Ada's) was revoked by the login that replaced it.
    const rotated = JSON.parse(held[0]!.body.toString()) as { refresh_token: string };
    expect((await stored(env)).refreshToken).not.toBe(rotated.refresh_token);
    const config = JSON.parse((await import('node:fs')).readFileSync(`${env.SCHOOL_CONFIG_DIR}/config.json`, 'utf8'));
    const reuse = await fetch(`${sandbox.issuer}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id: config.profiles.default.clientId }),
    });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
  });
});

describe('call: pagination, retries and jq against a hostile server', () => {
  const PAGES = /^\/api\/hostile-pages$/;
  const json = (body: unknown, headers: Record<string, string> = {}) => ({ status: 200, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('a Link header full of escapes is refused in one clean line', async () => {
    const env = hostileEnv();
    const call = () => runSchool(['call', '/api/hostile-pages', '--paginate', '--anonymous', '--base-url', sandbox.baseUrl], env);
    // Raw escapes: the HTTP parser itself refuses the answer.
    proxy.inject({ path: PAGES, times: 1, action: { kind: 'respond', answer: () => json({ items: [1] }, { link: `<http://example${EVIL}/next>; rel="next"` }) } });
    const raw = await call();
    expectOneLineError(raw, 1, /^school: The server's answer is not valid HTTP \(invalid header value char\)\.$/);
    expectClean(raw, [], true);
    // Bytes the parser lets through (UTF-8 of bidi and C1 characters): the next URL is refused, shown escaped.
    proxy.inject({ path: PAGES, action: { kind: 'respond', answer: () => json({ items: [1] }, { link: `<http://exa\u009bmple\u202e/next>; rel="next"` }) } });
    const shown = await call();
    expectOneLineError(shown, 1, /^school: The server's Link header has an invalid next URL: http:\/\/exa.*\\u\{9b\}/);
    expectClean(shown, [], true);
  });

  it('a Link to another origin is not followed, and nothing is sent there', async () => {
    const env = hostileEnv();
    await login(env);
    proxy.inject({ path: PAGES, action: { kind: 'respond', answer: () => json({ items: [1] }, { link: `<http://127.0.0.2:9/steal?x=${encodeURIComponent(EVIL)}>; rel="next"` }) } });
    const token = (await stored(env)).accessToken;
    const res = await runSchool(['call', '/api/hostile-pages', '--paginate'], env);
    expectOneLineError(res, 1, /^school: page 2: the next link points to http:\/\/127\.0\.0\.2:9, another origin than http:\/\/127\.0\.0\.1:\d+; not following it\.$/);
    expectClean(res, [token], true);
    expect(proxy.seen.some((r) => r.url.hostname === '127.0.0.2')).toBe(false);
  });

  it('a Retry-After of 1e300 is not believed: the usual back-off, then the answer', async () => {
    const env = hostileEnv();
    proxy.inject({ path: PAGES, times: 1, action: { kind: 'respond', answer: () => ({ status: 503, headers: { 'retry-after': '1e300' }, body: '' }) } });
    proxy.inject({ path: PAGES, action: { kind: 'respond', answer: () => json({ ok: true }) } });
    const started = Date.now();
    const res = await runSchool(['call', '/api/hostile-pages', '--anonymous', '--base-url', sandbox.baseUrl], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('Retrying in 1 s (HTTP 503, attempt 1 of 3)');
    expect(JSON.parse(res.stdout)).toEqual({ ok: true });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a Retry-After with hundreds of digits waits at most the cap, and Ctrl-C still stops the wait', async () => {
    const env = hostileEnv();
    proxy.inject({ path: PAGES, action: { kind: 'respond', answer: () => ({ status: 429, headers: { 'retry-after': '9'.repeat(400) }, body: '' }) } });
    // A deadline long enough for the capped wait: a shorter one would not start it at all.
    const run = startSchool(['call', '/api/hostile-pages', '--anonymous', '--base-url', sandbox.baseUrl, '--timeout', '600'], env);
    await run.waitForStderr(/Retrying in 60 s \(HTTP 429, attempt 1 of 3\)/);
    run.child.kill('SIGINT');
    const res = await run.done;
    expect(res.code).toBe(130);
    expectClean(res, [], true);
  });

  it('a jq error quoting server text is escaped and kept on one short line', async () => {
    const env = hostileEnv();
    proxy.inject({ path: PAGES, action: { kind: 'respond', answer: () => json({ title: `T${EVIL}${FORGED_LINE}${'x'.repeat(5000)}` }) } });
    const res = await runSchool(['call', '/api/hostile-pages', '--anonymous', '--base-url', sandbox.baseUrl, '--jq', '.title | error'], env);
    expectOneLineError(res, 1, /^school: --jq: T\\u\{1b\}\]52;c;/);
    expectClean(res);
    expect(res.stderr.length).toBeLessThan(1000);
  });
});
