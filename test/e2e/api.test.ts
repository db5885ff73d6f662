import { createServer, type IncomingHttpHeaders } from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { bigDescription } from '../helpers/big-description.js';
import { type Env, REPO, SCHOOL_BIN, expectSuccess, preloading, runSchool, shellCommand, userEnv, useSandbox } from './harness.js';

const sandbox = useSandbox();

/** The sandbox's API requests (not /openapi.json) of one method and path. */
const apiRequests = (method: string, path: string) => sandbox.events.filter((e) => e.type === 'api' && e.method === method && e.path === path);

/** Makes the cached description of every base URL of a home stale, as if its max-age had passed. */
function ageCachedDescriptions(env: Env & { SCHOOL_CONFIG_DIR: string }): number {
  const dir = join(env.HOME!, '.cache', 'school', 'openapi');
  const candidates = [dir, join(env.SCHOOL_CONFIG_DIR, 'cache', 'openapi')];
  let aged = 0;
  for (const d of candidates) {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.index.json'))) {
      const file = join(d, name);
      const index = JSON.parse(readFileSync(file, 'utf8'));
      index.fetchedAt = 1;
      writeFileSync(file, JSON.stringify(index));
      aged += 1;
    }
  }
  return aged;
}

/** A server of its own for one description, which records what reaches it. */
async function describedBy(answer: (headers: IncomingHttpHeaders) => { status: number; headers?: Record<string, string>; body?: string }) {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const a = answer(req.headers);
    res.writeHead(a.status, a.headers).end(a.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('school api against the sandbox, without a login', () => {
  let env: ReturnType<typeof userEnv>;
  beforeAll(() => {
    env = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
  });

  it('lists the operations by area, and as JSON', async () => {
    const text = expectSuccess(await runSchool(['api'], env)).stdout;
    expect(text).toMatch(/^courses:$/m);
    expect(text).toMatch(/^ {2}create-course +POST +\/api\/courses +Create a course +\[courses:write\]$/m);
    const ops = JSON.parse(expectSuccess(await runSchool(['api', '--json'], env)).stdout);
    const create = ops.find((o: { command: string }) => o.command === 'create-course');
    expect(create).toMatchObject({ method: 'POST', path: '/api/courses', scopes: ['courses:write'], area: 'courses' });
    const get = ops.find((o: { command: string }) => o.command === 'get-course');
    expect(get.parameters).toContainEqual(expect.objectContaining({ name: 'id', in: 'path', required: true }));
    expect(ops.length).toBeGreaterThanOrEqual(11);
  });

  it('explains an operation with --help: scopes, usage, typed flags, an example', async () => {
    const help = expectSuccess(await runSchool(['api', 'create-course', '--help'], env)).stdout;
    expect(help).toMatch(/^create-course: Create a course/);
    expect(help).toMatch(/Scopes: +courses:write/);
    expect(help).toMatch(/--title <string> +\(body, required/);
    expect(help).toMatch(/--seats <integer> +\(body, .*1 to 500/);
    expect(help).toMatch(/--visibility <public\|private>/);
    expect(help).toMatch(/Example:\n {2}school api create-course --title 'Difference Engines' --visibility public --lecturer 'Ada Lovelace' --seats 30\n/);
    const get = expectSuccess(await runSchool(['api', 'get-course', '--help'], env)).stdout;
    expect(get).toMatch(/school api get-course <id> \[flags\]/);
  });

  it('prints a dry run with no login and sends nothing', async () => {
    const before = apiRequests('POST', '/api/courses').length;
    const res = expectSuccess(await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '30', '--dry-run'], env));
    expect(res.stdout).toBe(`POST ${sandbox.baseUrl}/api/courses\nAccept: application/json, */*;q=0.5\nContent-Type: application/json\n\n{\n  "title": "Algebra",\n  "seats": 30\n}\n`);
    const json = JSON.parse(expectSuccess(await runSchool(['api', 'create-course', '--title', 'Algebra', '--dry-run', '--json'], env)).stdout);
    expect(json).toEqual({ method: 'POST', url: `${sandbox.baseUrl}/api/courses`, headers: { accept: 'application/json, */*;q=0.5', 'content-type': 'application/json' }, body: { title: 'Algebra' } });
    expect(apiRequests('POST', '/api/courses').length).toBe(before);
  });

  it('takes path arguments in order, as one segment each, and says which is missing', async () => {
    const res = expectSuccess(await runSchool(['api', 'get-course', 'a/../b?c', '--dry-run'], env));
    expect(res.stdout.split('\n')[0]).toBe(`GET ${sandbox.baseUrl}/api/courses/a%2F..%2Fb%3Fc`);
    const missing = await runSchool(['api', 'get-course'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/'school api get-course' needs <id>/);
    const anonymous = await runSchool(['api', 'get-course', 'c-101', '--anonymous', '--jq', '.title'], env);
    expect(anonymous.code, anonymous.stderr).toBe(0);
    expect(anonymous.stdout).toBe('Analytical Engines for Beginners\n');
  });

  it('refuses a bad body before sending, naming the field and what is expected', async () => {
    // Logged in with the scope the operation needs: only the checks stand between these and the API.
    const env = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--scope', 'openid,courses:read,courses:write'], env));
    const before = sandbox.events.filter((e) => e.type === 'api').length;
    const bad = await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '0', '--dry-run'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Not sent: --seats must be at least 1 \(got 0\)/);
    const typo = await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', 'thirty'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--seats expects an integer, not "thirty"/);
    const noTitle = await runSchool(['api', 'create-course', '--seats', '30', '--json'], env);
    expect(noTitle.code).toBe(2);
    expect(JSON.parse(noTitle.stderr)).toMatchObject({ error: 'usage', message: expect.stringMatching(/--title is required/) });
    const enumValue = await runSchool(['api', 'create-course', '--title', 'A', '--visibility', 'secret'], env);
    expect(enumValue.stderr).toMatch(/--visibility expects one of public, private, not "secret"/);
    const input = join(env.HOME, 'course.json');
    writeFileSync(input, JSON.stringify({ title: 'From a file', seats: 30, unknown_field: 1 }));
    // The sandbox's course schema allows no other property: the file's extra field is refused, naming it.
    const fromFile = await runSchool(['api', 'create-course', '--input', input], env);
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toMatch(/unknown_field/);
    // The flags override the file, and --no-validate sends what the checks would refuse (here, only shown).
    const merged = await runSchool(['api', 'create-course', '--input', input, '--seats', '12', '--no-validate', '--dry-run', '--json'], env);
    expect(JSON.parse(merged.stdout).body).toEqual({ title: 'From a file', seats: 12, unknown_field: 1 });
    expect(sandbox.events.filter((e) => e.type === 'api').length).toBe(before);
    // The same login sends a good body: what was refused above was refused by the checks alone.
    expectSuccess(await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '30'], env));
    expect(sandbox.events.filter((e) => e.type === 'api' && e.method === 'POST').length).toBe(1 + sandbox.events.slice(0, before).filter((e) => e.type === 'api' && e.method === 'POST').length);
  });

  it('says "did you mean" for an unknown operation or flag', async () => {
    const op = await runSchool(['api', 'create-cours'], env);
    expect(op.code).toBe(2);
    expect(op.stderr).toMatch(/Unknown operation 'create-cours' \(did you mean 'create-course'\?\)/);
    const byId = await runSchool(['api', 'createCourse'], env);
    expect(byId.stderr).toMatch(/did you mean 'create-course'/);
    const flag = await runSchool(['api', 'create-course', '--seat', '3'], env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/Unknown option '--seat' for 'school api create-course' \(did you mean '--seats'\?\)/);
  });

  it('needs a login to send, unless --anonymous for an operation that allows it', async () => {
    const before = apiRequests('POST', '/api/courses').length;
    const res = await runSchool(['api', 'create-course', '--title', 'Algebra'], env);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/Not logged in.*Nothing was sent/);
    expect(apiRequests('POST', '/api/courses').length).toBe(before);
  });

  it('completes operation names, their flags and enum values from the cache', async () => {
    const ops = expectSuccess(await runSchool(['__complete', 'api-operations'], env)).stdout.split('\n');
    expect(ops).toEqual(expect.arrayContaining(['create-course', 'list-courses', 'get-course']));
    const flags = expectSuccess(await runSchool(['__complete', 'api-flags', 'create-course'], env)).stdout.split('\n');
    expect(flags).toEqual(expect.arrayContaining(['--title', '--seats', '--visibility', '--dry-run', '--format']));
    expect(expectSuccess(await runSchool(['__complete', 'api-values', 'create-course', 'visibility'], env)).stdout).toBe('public\nprivate\n');
    // The bash script, as a shell runs it.
    const bash = spawnSync('bash', ['--norc', '--noprofile', '-c', BASH_COMPLETE, 'bash', join(REPO, 'completions', 'school.bash'), 'school api create-course --vis'], {
      env: { ...env, PATH: `${join(env.HOME, 'bin')}:${process.env.PATH}` },
      encoding: 'utf8',
    });
    expect(bash.stdout).toBe('--visibility\n');
  });
});

const BASH_COMPLETE = `
mkdir -p "$HOME/bin" && cat > "$HOME/bin/school" <<'WRAPPER' && chmod +x "$HOME/bin/school"
#!/bin/sh
exec ${shellCommand('node', SCHOOL_BIN)} "$@"
WRAPPER
source "$1" || exit 3
COMP_LINE=$2
COMP_POINT=\${#COMP_LINE}
read -r -a COMP_WORDS <<<"$2"
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMPREPLY=()
_school school "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"
`;

describe('school api against the sandbox, logged in', () => {
  let env: ReturnType<typeof userEnv>;
  beforeAll(async () => {
    env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage'], env));
  });

  it('refuses an operation whose scope the login lacks before sending, with the step-up command', async () => {
    const before = apiRequests('POST', '/api/courses').length;
    const res = await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '30'], env);
    expect(res.code).toBe(4);
    expect(res.stderr).toMatch(/Not sent: 'school api create-course' \(POST \/api\/courses\): the token lacks the scope courses:write/);
    expect(res.stderr).toMatch(/school login --add-scope courses:write/);
    expect(apiRequests('POST', '/api/courses').length).toBe(before);
  });

  it('creates a course with a title and 30 seats once the scope is granted, and refuses a bad body with no request', async () => {
    expectSuccess(await runSchool(['login', '--add-scope', 'courses:write'], env));
    const before = apiRequests('POST', '/api/courses').length;
    const bad = await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '1000'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--seats must be at most 500/);
    expect(apiRequests('POST', '/api/courses').length).toBe(before);
    const created = JSON.parse(expectSuccess(await runSchool(['api', 'create-course', '--title', 'Algebra', '--seats', '30'], env)).stdout);
    expect(created).toMatchObject({ title: 'Algebra', seats: 30 });
    expect(
      apiRequests('POST', '/api/courses')
        .map((e) => e.status)
        .slice(before),
    ).toEqual([201]);
    const dry = expectSuccess(await runSchool(['api', 'create-course', '--title', 'Algebra', '--dry-run'], env)).stdout;
    expect(dry).toMatch(/^Authorization: Bearer \[REDACTED\]$/m);
    expect(dry).not.toMatch(new RegExp((await runSchool(['token'], env)).stdout.trim().slice(0, 20)));
  });

  it('prints a listing as a table, columns from the response schema or --columns, every page with --paginate', async () => {
    const table = expectSuccess(await runSchool(['api', 'list-courses', '--format', 'table'], env)).stdout.split('\n');
    expect(table[0]).toMatch(/^ID +.*TITLE/);
    expect(table.some((l) => /^c-101 +.*Analytical Engines for Beginners/.test(l))).toBe(true);
    const chosen = expectSuccess(await runSchool(['api', 'list-courses', '--format', 'table', '--columns', 'title,id'], env)).stdout.split('\n');
    expect(chosen[0]).toMatch(/^TITLE +ID$/);
    const lessons = expectSuccess(await runSchool(['api', 'list-lessons', '--paginate', '--format', 'table', '--columns', 'id'], env))
      .stdout.trim()
      .split('\n');
    expect(lessons[0]).toBe('ID');
    expect(lessons.length).toBeGreaterThan(4);
  });

  it('revalidates a stale description with If-None-Match, and a 304 keeps the copy', async () => {
    expectSuccess(await runSchool(['api', '--refresh'], env));
    const count = () => sandbox.events.filter((e) => e.type === 'openapi').length;
    const before = count();
    expectSuccess(await runSchool(['api', 'list-courses', '--dry-run'], env));
    expect(count()).toBe(before); // fresh: no request
    expect(ageCachedDescriptions(env)).toBeGreaterThan(0);
    const res = expectSuccess(await runSchool(['api', 'create-course', '--title', 'T', '--dry-run'], env));
    expect(res.stdout).toMatch(/^POST /);
    const asked = sandbox.events.filter((e) => e.type === 'openapi').slice(before);
    expect(asked).toEqual([expect.objectContaining({ status: 304, conditional: true })]);
    expectSuccess(await runSchool(['api', 'list-courses', '--dry-run'], env));
    expect(count()).toBe(before + 1); // fresh again after the 304
  });
});

describe('school api with descriptions of other servers', () => {
  it('uses the stale copy with a one-line note when the server cannot be reached', async () => {
    const server = await describedBy(() => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'last-modified': 'Tue, 01 Sep 2026 10:00:00 GMT', 'cache-control': 'max-age=60' },
      body: JSON.stringify(bigDescription(10)),
    }));
    const env = userEnv({ SCHOOL_BASE_URL: server.url });
    expectSuccess(await runSchool(['api'], env));
    expect(server.seen.length).toBe(1);
    ageCachedDescriptions(env);
    expectSuccess(await runSchool(['api'], env));
    expect(server.seen[1]['if-modified-since']).toBe('Tue, 01 Sep 2026 10:00:00 GMT');
    await server.close();
    ageCachedDescriptions(env);
    const res = expectSuccess(await runSchool(['api', 'create-thing1', '--title', 'x', '--dry-run'], env));
    expect(res.stderr).toMatch(/^Could not reach http:\/\/127\.0\.0\.1:\d+\/openapi\.json \(.+\); using the copy cached \d+ days ago\.\n$/);
    expect(res.stdout).toMatch(/^POST /);
  });

  it('says in one line that a description cannot be fetched or parsed', async () => {
    const garbage = await describedBy(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"paths": ' }));
    const res = await runSchool(['api'], userEnv({ SCHOOL_BASE_URL: garbage.url }));
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`^school: The API description ${garbage.url}/openapi.json is not valid JSON \\([^\\n]+\\)\\.\\n$`));
    await garbage.close();
    const down = await runSchool(['api'], userEnv({ SCHOOL_BASE_URL: garbage.url }));
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/Could not fetch the API description/);
  });

  it('gives a hostile description a working, safe command line', async () => {
    const hostile = bigDescription(5000);
    const paths = hostile.paths as Record<string, Record<string, unknown>>;
    paths['/evil/{id}'] = {
      post: {
        operationId: 'evil\u001b]52;c;cGF5bG9hZA==\u0007Op',
        summary: 'Erase \u001b[2J the screen \u202e',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'format', in: 'query', schema: { type: 'string' } },
          { name: 'title', in: 'query', schema: { type: 'string' } },
          { name: '--dry-run', in: 'query', schema: { type: 'boolean' } },
        ],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Loop' } } } },
      },
    };
    paths['/dup'] = { get: { operationId: 'listThings1' }, post: { operationId: 'list-things1' } };
    (hostile.components as { schemas: Record<string, unknown> }).schemas.Loop = {
      type: 'object',
      // A pattern that does not compile, and one that backtracks without end on a crafted value.
      properties: { title: { type: 'string', pattern: '(' }, input: { type: 'string', pattern: '^(a+)+$' }, next: { $ref: '#/components/schemas/Loop' } },
      required: ['title'],
    };
    const server = await describedBy(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(hostile) }));
    const env = userEnv({ SCHOOL_BASE_URL: server.url });
    try {
      const list = expectSuccess(await runSchool(['api'], env));
      expect(list.stdout + list.stderr).not.toMatch(/[\u001b\u0007\u202e]/);
      expect(list.stderr).toMatch(/Note: 3 operations are named "list-things1"/);
      const ops = JSON.parse(expectSuccess(await runSchool(['api', '--json'], env)).stdout);
      expect(ops.length).toBe(5000 + 3);
      expect(new Set(ops.map((o: { command: string }) => o.command)).size).toBe(ops.length);
      const evil = ops.find((o: { path: string }) => o.path === '/evil/{id}');
      expect(evil.command).toMatch(/^[a-z0-9-]+$/);
      const help = expectSuccess(await runSchool(['api', evil.command, '--help'], env)).stdout;
      expect(help).not.toMatch(/[\u001b\u0007\u202e]/);
      // Help wraps a flag's text to the width: read as one line.
      expect(help.replace(/\s+/g, ' ')).toMatch(/--query-format <string> .*Renamed: the query parameter format \(--format is a flag of school api\)/);
      expect(help).toMatch(/--query-title <string>/);
      expect(help).toMatch(/--body-title <string>/);
      expect(help).toMatch(/--body-input <string>/);
      const dry = expectSuccess(await runSchool(['api', evil.command, 'x', '--query-format', 'csv', '--body-title', 'T', '--next', '{"title":"U"}', '--format', 'json', '--dry-run', '--json'], env));
      const req = JSON.parse(dry.stdout);
      expect(req.url).toBe(`${server.url}/evil/x?format=csv`);
      expect(req.body).toEqual({ title: 'T', next: { title: 'U' } });
      // A value crafted against a pattern that backtracks: the check gives up in time, and nothing is sent.
      const crafted = `${'a'.repeat(40)}!`;
      const started = Date.now();
      const attacked = await runSchool(['api', evil.command, 'x', '--body-title', 'T', '--body-input', crafted], env);
      expect(attacked.code, attacked.stderr).toBe(2);
      expect(attacked.stderr).toMatch(/^school: Not sent: the body could not be checked against the description in 0\.5 s \(one of its patterns backtracks on this value\)\.\n/);
      expect(attacked.stderr).toContain('--no-validate sends it anyway');
      expect(Date.now() - started).toBeLessThan(10_000);
      const unchecked = expectSuccess(await runSchool(['api', evil.command, 'x', '--body-title', 'T', '--body-input', crafted, '--no-validate', '--dry-run', '--json'], env));
      expect(JSON.parse(unchecked.stdout).body).toEqual({ title: 'T', input: crafted });
      // A value the pattern matches is checked, and passes.
      expectSuccess(await runSchool(['api', evil.command, 'x', '--body-title', 'T', '--body-input', 'aaaa', '--dry-run'], env));
      const missing = await runSchool(['api', evil.command, 'x', '--body-input', 'z', '--dry-run'], env);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/--body-title is required/);
    } finally {
      await server.close();
    }
  }, 120_000);
});

describe('what school api costs the other commands', () => {
  it('school token loads no validator and reads no description', async () => {
    const env = userEnv({ SCHOOL_TOKEN: 'tok-for-the-probe', SCHOOL_BASE_URL: sandbox.baseUrl });
    expectSuccess(await runSchool(['api', '--refresh'], env));
    const loaded = join(env.HOME, 'loaded-modules.txt');
    const reads = join(env.HOME, 'reads.txt');
    const probe = join(env.HOME, 'reads-probe.cjs');
    // Every file opened, by name: a description read would show as a cache file of openapi/.
    writeFileSync(
      probe,
      `const fs = require('node:fs'); const seen = [];
for (const name of ['openSync', 'readFileSync']) { const orig = fs[name]; fs[name] = function (p, ...rest) { seen.push(String(p)); return orig.call(this, p, ...rest); }; }
process.once('exit', () => fs.writeFileSync(${JSON.stringify(reads)}, seen.join('\\n')));\n`,
    );
    const res = await runSchool(['token'], {
      ...env,
      LOADED_MODULES_FILE: loaded,
      NODE_OPTIONS: preloading(join(REPO, 'test', 'helpers', 'loaded-modules.cjs'), probe),
    });
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(loaded, 'utf8')).not.toMatch(/json-schema/);
    expect(readFileSync(reads, 'utf8')).not.toMatch(/openapi/);
    // The probe sees reads at all: the dry run of an operation reads the index.
    const dry = await runSchool(['api', 'list-courses', '--dry-run'], { ...env, NODE_OPTIONS: preloading(probe) });
    expect(dry.code, dry.stderr).toBe(0);
    expect(readFileSync(reads, 'utf8')).toMatch(/openapi\/[^\n]*\.index\.json/);
  });
});
