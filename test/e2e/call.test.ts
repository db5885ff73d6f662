import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox } from '@school/sandbox';
import { type Env, SCHOOL_BIN, forwardProxy, runSchool, shellCommand, userEnv, useSandbox } from './harness.js';

const sandbox = useSandbox();
let env: ReturnType<typeof userEnv>;
let token: string;

beforeAll(async () => {
  env = userEnv();
  const res = await runSchool(['login', '--base-url', sandbox.baseUrl, '--scope', 'openid profile email courses:read students:read'], env);
  expect(res.code).toBe(0);
  token = (await runSchool(['token'], env)).stdout.trim();
});

async function echo(args: string[], e: Env = env, input?: string) {
  const res = await runSchool(['call', ...args], e, input);
  expect(res.stderr).toBe('');
  expect(res.code).toBe(0);
  return JSON.parse(res.stdout);
}

/** A listener on another origin that records what reaches it. */
async function recorder(): Promise<{ url: string; seen: Array<{ url: string; headers: IncomingHttpHeaders }>; close(): Promise<void> }> {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"elsewhere":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

describe('school call: building requests', () => {
  it('sends GET by default, and fields as a query string for GET', async () => {
    const got = await echo(['/api/echo', '-X', 'GET', '-f', 'q=linear algebra', '-F', 'page=2', '-f', 'filter[level]=1']);
    expect(got).toMatchObject({ method: 'GET', query: { q: 'linear algebra', page: '2', 'filter[level]': '1' }, authorization: 'present' });
  });

  it('sends fields as a JSON body with POST by default, typed with -F and nested with brackets', async () => {
    const file = join(env.HOME, 'bio.txt');
    writeFileSync(file, 'Wrote the first program.');
    const got = await echo([
      '/api/echo',
      '-f',
      'name=Ada',
      '-f',
      'year=1843',
      '-F',
      'seats=30',
      '-F',
      'open=true',
      '-F',
      'room=null',
      '-F',
      `bio=@${file}`,
      '-f',
      'tags[]=math',
      '-f',
      'tags[]=history',
      '-F',
      'meta[rating]=4.5',
    ]);
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.body).toEqual({ name: 'Ada', year: '1843', seats: 30, open: true, room: null, bio: 'Wrote the first program.', tags: ['math', 'history'], meta: { rating: 4.5 } });
  });

  it('sends a raw body from a file or stdin, with headers and the method given', async () => {
    const file = join(env.HOME, 'body.json');
    writeFileSync(file, '{"raw":[1,2,3]}');
    const fromFile = await echo(['/api/echo', '-X', 'PUT', '--input', file, '-H', 'Content-Type: application/json', '-H', 'X-Request-Note: from a file']);
    expect(fromFile).toMatchObject({ method: 'PUT', body: { raw: [1, 2, 3] } });
    expect(fromFile.headers['x-request-note']).toBe('from a file');
    const fromStdin = await echo(['/api/echo', '-X', 'PATCH', '--input', '-', '-H', 'content-type: text/plain'], env, 'plain text from stdin');
    expect(fromStdin).toMatchObject({ method: 'PATCH', body: 'plain text from stdin' });
  });

  it('refuses malformed input as a usage error', async () => {
    const runs = await Promise.all([
      runSchool(['call', '/api/echo', '-f', 'novalue'], env),
      runSchool(['call', '/api/echo', '-H', 'NoColon'], env),
      runSchool(['call', '/api/echo', '--input', '/nonexistent/x'], env),
      runSchool(['call'], env),
    ]);
    expect(runs.map((r) => [r.code, r.stdout])).toEqual(Array(4).fill([2, '']));
    expect(runs.map((r) => r.stderr.split('\n')[0])).toEqual([
      'school: Invalid -f "novalue": use key=value.',
      'school: Invalid header "NoColon": use \'Name: value\'.',
      'school: Cannot read /nonexistent/x: ENOENT.',
      'school: Missing the API path, e.g. `school call /api/courses`.',
    ]);
  });
});

describe('school call: authentication', () => {
  it('goes out anonymously when not logged in, and says so once', async () => {
    const anon = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
    const res = await runSchool(['call', '/api/echo'], anon);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('Not logged in: sending the request anonymously.\n');
    expect(JSON.parse(res.stdout)).toMatchObject({ authorization: 'absent', authenticated: false });
  });

  it('sends no token with --anonymous even when logged in', async () => {
    expect(await echo(['/api/echo', '--anonymous'])).toMatchObject({ authorization: 'absent' });
  });

  it('refreshes once and retries on 401 invalid_token', async () => {
    // The server expires the token earlier than the client believes (clock skew): the API says 401.
    const shortLived = await startSandbox({ quiet: true, accessTokenTtl: 2 });
    try {
      const e = userEnv();
      expect((await runSchool(['login', '--base-url', shortLived.baseUrl, '--insecure-storage'], e)).code).toBe(0);
      const file = join(e.SCHOOL_CONFIG_DIR, 'credentials.json');
      const shape = JSON.parse(readFileSync(file, 'utf8'));
      const account = Object.keys(shape.entries)[0];
      const set = JSON.parse(shape.entries[account]);
      const access = set.accessToken;
      set.obtainedAt = Math.floor(Date.now() / 1000);
      set.expiresAt = set.obtainedAt + 3600;
      shape.entries[account] = JSON.stringify(set);
      writeFileSync(file, JSON.stringify(shape), { mode: 0o600 });
      // The sandbox runs in this process: its clock set 2.5 s ahead, the token has expired for the
      // server alone, as with a client whose clock is behind.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Date.now() + 2500 });
      const grants = () => shortLived.events.filter((x) => x.type === 'token' && x.grant_type === 'refresh_token').length;
      const res = await runSchool(['call', '/api/courses', '--verbose'], e);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout).anonymous).toBe(false);
      expect(grants()).toBe(1);
      // The trace shows the 401, the refresh and the retry, with every secret redacted.
      expect(res.stderr).toMatch(/< HTTP\/1.1 401/);
      expect(res.stderr).toMatch(/refresh_token=\[REDACTED\]/);
      expect(res.stderr).toMatch(/authorization: Bearer \[REDACTED\]/i);
      expect(res.stderr).toMatch(/"access_token":"\[REDACTED\]"/);
      const fresh = JSON.parse(JSON.parse(readFileSync(file, 'utf8')).entries[account]);
      expect(fresh.accessToken).not.toBe(access);
      for (const secret of [access, fresh.accessToken, fresh.refreshToken, set.refreshToken]) expect(res.stderr).not.toContain(secret);

      // A token the server keeps refusing, even after a refresh, ends in exit 4.
      await fetch(`${shortLived.issuer}/api/oauth/revoke`, { method: 'POST', body: new URLSearchParams({ token: fresh.refreshToken, client_id: fresh.clientId }) });
      const refused = await runSchool(['call', '/api/courses'], e);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toContain('school login');
    } finally {
      vi.useRealTimers();
      await shortLived.close();
    }
  });

  it('exits 4 with the missing scope and the exact login command on 403', async () => {
    const res = await runSchool(['call', '-X', 'POST', '/api/courses', '-f', 'title=Algebra'], env);
    expect(res.code).toBe(4);
    expect(JSON.parse(res.stdout).error).toBe('insufficient_scope');
    expect(res.stderr).toContain('lacks the scope courses:write');
    expect(res.stderr).toContain('\nschool login --add-scope courses:write\n');
    const json = await runSchool(['call', '-X', 'POST', '/api/courses', '-f', 'title=Algebra', '--json'], env);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'insufficient_scope', scope: 'courses:write', hint: expect.stringContaining('courses:write') });
  });

  it('never sends the token to another origin', async () => {
    const other = await recorder();
    try {
      const refused = await runSchool(['call', `${other.url}/steal`], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/Refusing to send the token/);
      expect(other.seen).toEqual([]);
      const anonymous = await runSchool(['call', `${other.url}/public`, '--anonymous'], env);
      expect(anonymous.code).toBe(0);
      expect(other.seen).toHaveLength(1);
      expect(other.seen[0].headers.authorization).toBeUndefined();
      expect(JSON.stringify(other.seen)).not.toContain(token);
    } finally {
      await other.close();
    }
  });
});

describe('school call: output', () => {
  it('prints the body byte for byte when piped, a JSON body ended with a newline as jq and gh api end theirs', async () => {
    const direct = Buffer.from(await (await fetch(`${sandbox.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer());
    expect(direct.at(-1)).not.toBe(0x0a);
    const res = await runSchool(['call', '/api/courses'], env);
    expect(Buffer.from(res.stdout)).toEqual(Buffer.concat([direct, Buffer.from('\n')]));
  });

  it('pretty-prints and colours JSON on a terminal', async () => {
    const tty = await new Promise<string>((resolve, reject) => {
      const cmd = shellCommand(process.execPath, SCHOOL_BIN, 'call', '/api/echo', '-F', 'n=1');
      const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...(env as NodeJS.ProcessEnv), NO_COLOR: undefined, TERM: 'xterm-256color' } });
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.on('error', reject);
      child.on('close', () => resolve(out));
    });
    expect(tty).toMatch(/\u001b\[\d+m"method"\u001b\[\d+m:/);
    expect(tty).toMatch(/\n {2}\S/);
  });

  it('adds the status line and headers with --include', async () => {
    const res = await runSchool(['call', '/api/courses', '-i'], env);
    expect(res.stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(res.stdout).toMatch(/\r\nContent-Type: application\/json[^\r]*\r\n/i);
    expect(res.stdout).toMatch(/\r\n\r\n\{/);
  });

  it('exits 1 on a non-2xx answer, still printing the body, with a one-line summary', async () => {
    const res = await runSchool(['call', '/api/courses/nope'], env);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout).error).toBe('not_found');
    expect(res.stderr).toBe('school: HTTP 404 Not Found (GET /api/courses/nope)\n');
  });

  it('lists the operations with their scopes from /openapi.json', async () => {
    const res = await runSchool(['call', '--list'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^POST +\/api\/courses +courses:write/m);
    const ops = JSON.parse((await runSchool(['call', '--list', '--json'], env)).stdout);
    expect(ops).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/students', scopes: ['students:read'] }));
  });
});

describe('school call: proxies', () => {
  it('sends API and protocol requests through HTTP_PROXY, and not when NO_PROXY matches', async () => {
    const proxy = await forwardProxy();
    try {
      const viaProxy = { ...env, HTTP_PROXY: proxy.url };
      expect((await runSchool(['call', '/api/courses'], viaProxy)).code).toBe(0);
      expect((await runSchool(['whoami'], viaProxy)).code).toBe(0);
      expect(proxy.seen).toContain(`GET ${sandbox.baseUrl}/api/courses`);
      expect(proxy.seen).toContain(`GET ${sandbox.issuer}/api/oauth/userinfo`);
      const count = proxy.seen.length;
      expect((await runSchool(['call', '/api/courses'], { ...viaProxy, NO_PROXY: '127.0.0.1' })).code).toBe(0);
      expect(proxy.seen.length).toBe(count);
    } finally {
      await proxy.close();
    }
  });

  it('takes a login through the proxy too', async () => {
    const proxy = await forwardProxy();
    try {
      const e = userEnv({ HTTP_PROXY: proxy.url });
      expect((await runSchool(['login', '--base-url', sandbox.baseUrl], e)).code).toBe(0);
      expect(proxy.seen).toContain(`GET ${sandbox.baseUrl}/.well-known/oauth-protected-resource`);
      expect(proxy.seen).toContain(`POST ${sandbox.issuer}/api/oauth/token`);
    } finally {
      await proxy.close();
    }
  });
});
