import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Env, SCHOOL_BIN, expectSuccess, runSchool, userEnv, runAsAgent, shellCommand, useSandbox } from './harness.js';

const sandbox = useSandbox();
let env: Env & { HOME: string };

beforeAll(async () => {
  env = userEnv();
  expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--scope', 'openid courses:read'], env));
});

const call = (args: string[], input?: string) => runSchool(['call', ...args], env, input);
const testingPage = (params: Record<string, string>) => `/api/testing/page?${new URLSearchParams(params)}`;

/** As an agent runs it: standard input is /dev/null, output and errors are pipes. */
const runDetached = (args: string[]) => runAsAgent(args, env);

/** Runs in a pseudo-terminal (util-linux `script`); returns what the terminal showed. */
function runInTerminal(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const command = shellCommand(process.execPath, SCHOOL_BIN, ...args);
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: env as NodeJS.ProcessEnv });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}

describe('school call --paginate', () => {
  it('follows the Link rel="next" pages, printing each in turn with the token on every page', async () => {
    const before = sandbox.events.length;
    const res = expectSuccess(await call(['/api/lessons', '--paginate']));
    expect(res.stderr).toBe('');
    // Piped: each page's bytes as they came, and a newline after each JSON page that lacks one (as jq and gh api end theirs).
    const pages = res.stdout.split(/(?<=\})\n(?=\{)/).map((p) => JSON.parse(p));
    expect(pages.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(pages.flatMap((p) => p.lessons.map((l: { id: string }) => l.id))).toEqual(['l-1', 'l-2', 'l-3', 'l-4', 'l-5', 'l-6', 'l-7', 'l-8']);
    expect(res.stdout.endsWith('}\n')).toBe(true);
    const requests = sandbox.events.slice(before).filter((e) => e.type === 'api' && e.path === '/api/lessons');
    expect(requests.map((e) => e.authenticated)).toEqual([true, true, true]);
  });

  it('gathers every page into one JSON array with --slurp', async () => {
    const res = expectSuccess(await call(['/api/lessons', '--paginate', '--slurp', '-f', 'per_page=5', '-X', 'GET']));
    const all = JSON.parse(res.stdout);
    expect(all.map((p: { page: number }) => p.page)).toEqual([1, 2]);
    expect(all[1].lessons).toHaveLength(3);
  });

  it('applies --jq to each page, and to the whole array with --slurp', async () => {
    const perPage = expectSuccess(await call(['/api/lessons', '--paginate', '--jq', '.lessons[] | .title']));
    expect(perPage.stdout).toBe(`${Array.from({ length: 8 }, (_, i) => `Lesson ${i + 1}`).join('\n')}\n`);
    const counts = expectSuccess(await call(['/api/lessons', '--paginate', '--jq', '{page, n: (.lessons | length)}']));
    expect(counts.stdout).toBe('{"page":1,"n":3}\n{"page":2,"n":3}\n{"page":3,"n":2}\n');
    const whole = expectSuccess(await call(['/api/lessons', '--paginate', '--slurp', '--jq', '[.[].lessons[]] | length']));
    expect(whole.stdout).toBe('8\n');
  });

  it('refuses a next link to another origin, sending nothing there', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers);
      res.end('{}');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    try {
      const elsewhere = `http://127.0.0.1:${(other.address() as { port: number }).port}/api/lessons?page=2`;
      const res = await call([testingPage({ next: elsewhere }), '--paginate']);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('{"page":true}\n');
      expect(res.stderr).toMatch(/^school: page 2: the next link points to http:\/\/127\.0\.0\.1:\d+, another origin than http:\/\/127\.0\.0\.1:\d+; not following it\.\n$/);
      expect(seen).toEqual([]);
    } finally {
      await new Promise<void>((r) => other.close(() => r()));
    }
  });

  it('stops on a next link that loops, and says which page failed', async () => {
    const loop = await call([testingPage({ next: 'self' }), '--paginate']);
    expect(loop.code).toBe(1);
    expect(loop.stderr).toMatch(/^school: page 2: the next link repeats \/api\/testing\/page\?next=self, already fetched; stopping to avoid a loop\.\n$/);

    const failing = `${sandbox.baseUrl}${testingPage({ status: '500', body: '{"error":"server_error"}' })}`;
    const res = await call([testingPage({ next: failing }), '--paginate']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('{"page":true}\n{"error":"server_error"}\n');
    expect(res.stderr).toBe('school: page 2: HTTP 500 Internal Server Error (GET /api/testing/page)\n');
  });

  it('is a usage error with --slurp alone or with another method than GET', async () => {
    const slurp = await call(['/api/lessons', '--slurp']);
    const post = await call(['/api/lessons', '--paginate', '-X', 'POST']);
    expect([slurp.code, post.code]).toEqual([2, 2]);
    expect(slurp.stderr).toMatch(/^school: --slurp needs --paginate/);
    expect(post.stderr).toMatch(/^school: --paginate follows pages of a GET listing, not POST\./);
  });
});

describe('school call --jq', () => {
  it('prints strings raw and other values as JSON, one per line', async () => {
    const res = expectSuccess(await call(['/api/echo', '-X', 'GET', '-f', 'q=algebra', '--jq', '.query.q, .method, .authenticated, .query']));
    expect(res.stdout).toBe('algebra\nGET\ntrue\n{"q":"algebra"}\n');
  });

  it('says so in one line: exit 2 for a bad expression (before any request), exit 1 for a body that is not JSON', async () => {
    const before = sandbox.events.filter((e) => e.type === 'api').length;
    const bad = await call(['/api/echo', '--jq', '.query[']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^school: Invalid --jq expression: syntax error[^\n]*\n$/);
    expect(sandbox.events.filter((e) => e.type === 'api').length).toBe(before);

    const html = await call([testingPage({ type: 'text/html', body: '<p>hello</p>' }), '--jq', '.']);
    expect(html.code).toBe(1);
    expect(html.stdout).toBe('');
    expect(html.stderr).toBe('school: The response is not JSON, so --jq cannot filter it.\n');
  });
});

describe('school call --jq, interrupted', () => {
  it('stops a filter that runs for ever on Ctrl-C, as jq itself would', async () => {
    const child = spawn(process.execPath, [SCHOOL_BIN, 'call', '/api/lessons', '--jq', 'repeat(.) | empty'], { env: env as NodeJS.ProcessEnv, stdio: 'ignore' });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
    await new Promise((r) => setTimeout(r, 2500));
    child.kill('SIGINT');
    const killedBy = await Promise.race([ended, new Promise((r) => setTimeout(() => r('still running'), 5000))]);
    if (killedBy === 'still running') child.kill('SIGKILL');
    expect(killedBy).toBe('SIGINT');
  });
});

describe('school call retries', () => {
  it('retries a GET answered 503 with Retry-After, saying so on stderr, then succeeds', async () => {
    const started = Date.now();
    const res = expectSuccess(await call([`/api/testing/flaky?key=${randomUUID()}&times=2&retry_after=1`]));
    expect(JSON.parse(res.stdout)).toMatchObject({ ok: true, attempts: 3 });
    expect(res.stderr).toBe('Retrying in 1 s (HTTP 503, attempt 1 of 3)…\nRetrying in 1 s (HTTP 503, attempt 2 of 3)…\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('reads a Retry-After date on 429, and shows the retries in the --verbose trace', async () => {
    const res = expectSuccess(await call([`/api/testing/flaky?key=${randomUUID()}&times=1&status=429&retry_after=date:1`, '--verbose']));
    expect(res.stderr).toMatch(/< HTTP\/1\.1 429 Too Many Requests[^\n]*\n(?:<[^\n]*\n)*Retrying in [0-9.]+ s \(HTTP 429, attempt 1 of 3\)…\n\* GET /);
    expect(JSON.parse(res.stdout).attempts).toBe(2);
  });

  it('gives up after three retries, with the last answer', async () => {
    const res = await call([`/api/testing/flaky?key=${randomUUID()}&times=9&retry_after=0`]);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stdout)).toMatchObject({ attempt: 4 });
    expect(res.stderr.match(/^Retrying/gm)).toHaveLength(3);
    expect(res.stderr).toMatch(/school: HTTP 503 Service Unavailable \(GET \/api\/testing\/flaky\)\n$/);
  });

  it('never retries a POST unless --retry asks for it', async () => {
    const key = randomUUID();
    const once = await call([`/api/testing/flaky?key=${key}&times=1&retry_after=0`, '-X', 'POST']);
    expect(once.code).toBe(1);
    expect(JSON.parse(once.stdout)).toMatchObject({ attempt: 1 });
    expect(once.stderr).toBe('school: HTTP 503 Service Unavailable (POST /api/testing/flaky)\n');

    const other = randomUUID();
    const retried = expectSuccess(await call([`/api/testing/flaky?key=${other}&times=1&retry_after=0`, '-X', 'POST', '--retry', '1']));
    expect(JSON.parse(retried.stdout)).toMatchObject({ method: 'POST', attempts: 2 });
    expect(retried.stderr).toBe('Retrying in 0 s (HTTP 503, attempt 1 of 1)…\n');
  });
});

describe('school call --timeout', () => {
  it('stops a body that trickles in past the deadline', async () => {
    const started = Date.now();
    const res = await call(['/api/testing/slow?seconds=20', '--timeout', '2']);
    const elapsed = Date.now() - started;
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('school: The request did not complete within 2 s.\n');
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    // Stopped at its deadline, not at the end of the 20 s body: the margin is for a busy machine.
    expect(elapsed).toBeLessThan(15_000);
  });

  it('counts the waits between retries against the deadline, and does not start a wait that would pass it', async () => {
    const started = Date.now();
    const res = await call([`/api/testing/flaky?key=${randomUUID()}&times=2&retry_after=30`, '--timeout', '2']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('school: The request did not complete within 2 s: the server answered HTTP 503 and asked to retry in 30 s.\n');
    // The 30 s wait was never started (nor any part of it up to the deadline).
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('lets a slow body finish within the deadline', async () => {
    const res = expectSuccess(await call(['/api/testing/slow?seconds=2', '--timeout', '10']));
    expect(JSON.parse(res.stdout).slow).toBe(true);
  });
});

describe('school call --input', () => {
  it('sends a JSON body as application/json unless a Content-Type is given', async () => {
    const json = join(env.HOME, 'course.json');
    const text = join(env.HOME, 'note.txt');
    writeFileSync(json, '{"title": "Algebra"}\n');
    writeFileSync(text, 'just words');
    const asJson = JSON.parse(expectSuccess(await call(['/api/echo', '-X', 'PUT', '--input', json])).stdout);
    expect(asJson.headers['content-type']).toBe('application/json');
    expect(asJson.body).toEqual({ title: 'Algebra' });
    const fromStdin = JSON.parse(expectSuccess(await call(['/api/echo', '--input', '-'], '[1, 2]')).stdout);
    expect(fromStdin).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' }, body: [1, 2] });
    const asText = JSON.parse(expectSuccess(await call(['/api/echo', '-X', 'PUT', '--input', text])).stdout);
    expect(asText.headers['content-type']).toBeUndefined();
    const given = JSON.parse(expectSuccess(await call(['/api/echo', '-X', 'PUT', '--input', json, '-H', 'Content-Type: text/plain'])).stdout);
    expect(given.headers['content-type']).toBe('text/plain');
  });
});

describe('files written by PowerShell', () => {
  const utf8Bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
  const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);

  it('--input and --input - send a UTF-8 file with a byte-order mark as JSON, without the mark', async () => {
    const file = join(env.HOME, 'bom.json');
    writeFileSync(file, utf8Bom('{"title": "Algèbre"}\r\n'));
    const sent = JSON.parse(expectSuccess(await call(['/api/echo', '-X', 'PUT', '--input', file])).stdout);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({ title: 'Algèbre' });
    // Through a pipe, as `Get-Content x.json | school call … --input -` gives it.
    const child = spawn(process.execPath, [SCHOOL_BIN, 'call', '/api/echo', '--input', '-'], { env: env as NodeJS.ProcessEnv });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stdin.end(utf8Bom('[1, 2]'));
    expect(await new Promise((r) => child.on('close', r))).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ headers: { 'content-type': 'application/json' }, body: [1, 2] });
  });

  it('--input sends a UTF-16LE file with a mark (PowerShell 5.1 `>`) as UTF-8 JSON', async () => {
    const file = join(env.HOME, 'utf16.json');
    writeFileSync(file, utf16le('{"title": "Algèbre"}\r\n'));
    const sent = JSON.parse(expectSuccess(await call(['/api/echo', '-X', 'PUT', '--input', file])).stdout);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.body).toEqual({ title: 'Algèbre' });
  });

  it('-F key=@file and -F key=@- read the text without the mark', async () => {
    const file = join(env.HOME, 'note.txt');
    writeFileSync(file, utf8Bom('Bonjour'));
    const fromFile = JSON.parse(expectSuccess(await call(['/api/echo', '-F', `note=@${file}`])).stdout);
    expect(fromFile.body).toEqual({ note: 'Bonjour' });
    const utf16 = join(env.HOME, 'note16.txt');
    writeFileSync(utf16, utf16le('Grüße'));
    const fromUtf16 = JSON.parse(expectSuccess(await call(['/api/echo', '-F', `note=@${utf16}`])).stdout);
    expect(fromUtf16.body).toEqual({ note: 'Grüße' });
    const fromStdin = JSON.parse(expectSuccess(await call(['/api/echo', '-F', 'note=@-'], '\ufeffSalut')).stdout);
    expect(fromStdin.body).toEqual({ note: 'Salut' });
  });
});

describe('school call output for people and agents', () => {
  it('keeps an error body and the error line apart on a terminal, and piped output byte for byte', async () => {
    const path = testingPage({ status: '404', type: 'text/plain', body: 'Not Found' });
    const shown = await runInTerminal(['call', path]);
    expect(shown).toContain('Not Found\r\nschool: HTTP 404 Not Found (GET /api/testing/page)');
    const piped = await call([path]);
    expect(piped.stdout).toBe('Not Found');
    expect(piped.code).toBe(1);
  });

  it('pretty-prints --paginate pages on a terminal', async () => {
    const shown = await runInTerminal(['call', '/api/lessons', '--paginate', '--jq', '.lessons[0]']);
    expect(shown.replace(/\r\n/g, '\n')).toContain('{\n  "id": "l-1",\n  "title": "Lesson 1",\n  "course": "c-101"\n}\n{\n  "id": "l-4"');
  });

  it('gives agents JSON errors on stderr and data on stdout, with nothing on standard input', async () => {
    const timeout = await runDetached(['call', '/api/testing/slow?seconds=20', '--timeout', '1', '--json']);
    expect(timeout.code).toBe(1);
    expect(JSON.parse(timeout.stderr)).toEqual({ error: 'timeout', message: 'The request did not complete within 1 s.' });
    const badJq = await runDetached(['call', '/api/lessons', '--jq', '.[', '--json']);
    expect(badJq.code).toBe(2);
    expect(JSON.parse(badJq.stderr)).toMatchObject({ error: 'invalid_jq', message: expect.stringMatching(/^Invalid --jq expression/) });
    const http = await runDetached(['call', '/api/courses/nope', '--json']);
    expect(http.code).toBe(1);
    expect(JSON.parse(http.stdout)).toMatchObject({ error: 'not_found' });
    expect(JSON.parse(http.stderr)).toEqual({ error: 'http_error', message: 'HTTP 404 Not Found (GET /api/courses/nope)' });
    const ids = expectSuccess(await runDetached(['call', '/api/lessons', '--paginate', '--jq', '.lessons[].id']));
    expect(ids.stdout.trim().split('\n')).toHaveLength(8);
  });

  it('lists which operations paginate and their parameters', async () => {
    const ops = JSON.parse(expectSuccess(await call(['--list', '--json'])).stdout);
    expect(ops).toContainEqual(
      expect.objectContaining({
        method: 'GET',
        path: '/api/lessons',
        scopes: ['courses:read'],
        paginated: true,
        parameters: expect.arrayContaining([expect.objectContaining({ name: 'per_page', in: 'query', required: false, type: 'integer' })]),
      }),
    );
    expect(ops).toContainEqual(
      expect.objectContaining({ method: 'GET', path: '/api/courses/{id}', paginated: false, parameters: [expect.objectContaining({ name: 'id', in: 'path', required: true })] }),
    );
    const paginated = expectSuccess(await call(['--list', '--jq', '.[] | select(.paginated) | "\\(.method) \\(.path)"']));
    const lines = paginated.stdout.trim().split('\n');
    expect(lines).toEqual(expect.arrayContaining(['GET /api/lessons', 'GET /api/orders', 'GET /api/members']));
    expect(lines.every((l) => l.startsWith('GET '))).toBe(true);
    expect(lines).not.toContain('GET /api/courses/{id}');
  });
});
