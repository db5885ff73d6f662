import { describe, expect, it } from 'vitest';
import type { FieldSpec } from '../../src/api/operation-detail.js';
import { runApi } from '../../src/commands/api/api.js';
import { operationFlags } from '../../src/commands/api-own-flags.js';
import { flagValues, parseApiLine, setPath, typedValue } from '../../src/commands/api/flags.js';
import { renderTable } from '../../src/commands/api/table.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/http/client.js';
import { apiLine } from '../../src/fast-path.js';
import { maxAgeOf } from '../../src/session/api-description.js';
import { bigDescription } from '../helpers/big-description.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const field = (location: FieldSpec['location'], name: string, extra: Partial<FieldSpec> = {}): FieldSpec => ({ location, name, type: 'string', array: false, required: false, ...extra });

describe('school api flags', () => {
  it('gives each field a kebab-case flag, and a location prefix where two would clash or one is a flag of school api', () => {
    const flags = operationFlags([
      field('path', 'id'),
      field('query', 'per_page', { type: 'integer' }),
      field('query', 'title'),
      field('body', 'title', { path: ['title'] }),
      field('query', 'format'),
      field('body', 'input', { path: ['input'] }),
      field('body', 'address.postCode', { path: ['address', 'postCode'] }),
      field('header', 'X-Request-Id'),
      field('header', 'Authorization'),
      field('header', 'bad header'),
    ]);
    expect(flags.map((f) => f.flag)).toEqual(['per-page', 'query-title', 'body-title', 'query-format', 'body-input', 'address.post-code', 'x-request-id']);
    expect(flags.find((f) => f.flag === 'query-format')?.renamed).toBe('the query parameter format (--format is a flag of school api)');
    expect(flags.find((f) => f.flag === 'body-title')?.renamed).toBe('the body field title (another field is also named title)');
  });

  it('parses values by type, refusing what does not fit with the flag and what it expects', () => {
    const seats = field('body', 'seats', { type: 'integer' });
    expect(typedValue('seats', seats, '30')).toBe(30);
    expect(() => typedValue('seats', seats, '3.5')).toThrow('--seats expects an integer, not "3.5".');
    expect(typedValue('ratio', field('body', 'ratio', { type: 'number' }), '-1.5e2')).toBe(-150);
    expect(() => typedValue('open', field('body', 'open', { type: 'boolean' }), 'yes')).toThrow('--open expects true or false');
    expect(typedValue('meta', field('body', 'meta', { type: 'json' }), '{"a":1}')).toEqual({ a: 1 });
    expect(typedValue('meta', field('body', 'meta', { type: 'json' }), 'plain')).toBe('plain');
    const level = field('query', 'level', { enum: ['a', 'b'] });
    expect(() => typedValue('level', level, 'c')).toThrow('--level expects one of a, b, not "c".');
    expect(typedValue('n', field('query', 'n', { type: 'integer', enum: [1, 2] }), '2')).toBe(2);
  });

  it('splits a line into the operation, its path arguments, its flags and the flags of school api', () => {
    const flags = operationFlags([field('path', 'id'), field('body', 'tags', { array: true, path: ['tags'] }), field('body', 'open', { type: 'boolean', path: ['open'] })]);
    const line = parseApiLine(['--profile', 'work', 'update-course', 'c-1', '--tags', 'a', '--tags=b', '--open', '--dry-run', '--jq', '.id', '--', '-x'], flags, 'school api update-course');
    expect(line.operation).toBe('update-course');
    expect(line.args).toEqual(['c-1', '-x']);
    expect(line.values.get('tags')).toEqual(['a', 'b']);
    expect(line.values.get('open')).toEqual(['true']);
    expect(line.builtins.get('profile')).toBe('work');
    expect(line.builtins.get('jq')).toBe('.id');
    expect(line.builtins.get('dry-run')).toBe(true);
    expect(parseApiLine(['op', '--no-open'], flags, 'x').values.get('open')).toEqual(['false']);
    expect(() => parseApiLine(['op', '--tag', 'a'], flags, 'school api op')).toThrow("Unknown option '--tag' for 'school api op' (did you mean '--tags'?). Run 'school api op --help'.");
    // Before the operation's flags are known (the first reading), an unknown flag is taken as one of them.
    const first = parseApiLine(['--base-url', 'http://127.0.0.1:1', '--json', 'list-courses', '--page', '2', 'x', '--open', '--dry-run'], undefined, 'school api');
    expect(first).toMatchObject({ operation: 'list-courses', args: ['x'] });
    expect(first.values).toEqual(
      new Map([
        ['page', ['2']],
        ['open', ['true']],
      ]),
    );
    expect([...first.builtins.keys()]).toEqual(['base-url', 'json', 'dry-run']);
    expect(parseApiLine(['--page', '2', 'list-courses'], undefined, 'school api').operation).toBe('list-courses');
    // A value beginning with a dash (a descending sort key, a negative number) is a value in both readings; a short flag of school api is not.
    const dashed = ['list-leagues', '--sort', '-modified_at', '--offset', '-5', '--open', '-i'];
    expect(parseApiLine(dashed, undefined, 'school api').values).toEqual(
      new Map([
        ['sort', ['-modified_at']],
        ['offset', ['-5']],
        ['open', ['true']],
      ]),
    );
    const sorted = operationFlags([field('query', 'sort', { array: true }), field('query', 'offset', { type: 'integer' }), field('query', 'open', { type: 'boolean' })]);
    const second = parseApiLine(dashed, sorted, 'school api list-leagues');
    expect(second.values.get('sort')).toEqual(['-modified_at']);
    expect(second.builtins.get('include')).toBe(true);
    // A repeatable flag of allowed values takes them joined with commas too, as the API's documents write them.
    const types = operationFlags([field('query', 'type', { array: true, enum: ['album', 'track', 'a,b'] })]);
    const joined = (value: string) => flagValues(parseApiLine(['search', '--type', value, '--type', 'album'], types, 'x'), types)[0].value;
    expect(joined('track,album')).toEqual(['track', 'album', 'album']);
    expect(joined('a,b')).toEqual(['a,b', 'album']);
    expect(() => joined('album,show')).toThrow('--type expects one of album, track, a,b, not "album,show".');
    // One property of an object-valued parameter, read alike before and after its flags are known.
    const filter = operationFlags([field('query', 'filter', { type: 'json' })]);
    expect(parseApiLine(['op', '--filter.status', 'open', '--filter.kind=a'], filter, 'x').values).toEqual(
      new Map([
        ['filter.status', ['open']],
        ['filter.kind', ['a']],
      ]),
    );
    expect(parseApiLine(['op', '--filter.status', 'open'], undefined, 'x').values.get('filter.status')).toEqual(['open']);
    expect(() => parseApiLine(['op', '--title.x', 'a'], flags, 'x')).toThrow("Unknown option '--title.x'");
    expect(() => parseApiLine(['--page', '2'], [], 'school api')).toThrow("Unknown option '--page' for 'school api'");
  });

  it('sets nested body fields without ever touching Object.prototype', () => {
    const body: Record<string, unknown> = {};
    setPath(body, ['__proto__', 'polluted'], 'yes');
    setPath(body, ['address', 'city'], 'Paris');
    expect(Reflect.get({}, 'polluted')).toBeUndefined();
    expect(JSON.stringify(body)).toBe('{"__proto__":{"polluted":"yes"},"address":{"city":"Paris"}}');
  });
});

describe('school api on the fast path', () => {
  it('takes the line after `api`, global options before it kept, and leaves every other command to the parser', () => {
    expect(apiLine(['--profile', 'work', '--json', 'api', 'list-courses', '--page', '2'])).toEqual(['--profile', 'work', '--json', 'list-courses', '--page', '2']);
    expect(apiLine(['api'])).toEqual([]);
    expect(apiLine(['call', 'api'])).toBeUndefined();
    expect(apiLine(['--base-url', 'api', 'token'])).toBeUndefined();
  });
});

describe('--format table', () => {
  it('prints a wrapped list as a table with the columns given, server text made safe', () => {
    const text = renderTable(
      [
        {
          courses: [
            { id: 'c-1', title: 'Algebra\u001b[2J', seats: 30 },
            { id: 'c-2', title: 'Logic' },
          ],
        },
      ],
      { columns: ['id', 'title', 'seats'] },
    );
    expect(text).toBe('ID   TITLE             SEATS\nc-1  Algebra\\u{1b}[2J  30\nc-2  Logic\n');
  });

  it('leaves out a column empty in every row, unless it was asked for by name', () => {
    const page = [
      {
        courses: [
          { id: 'c-1', note: null, title: 'Algebra' },
          { id: 'c-2', title: 'Logic' },
        ],
      },
    ];
    expect(renderTable(page, { columns: ['id', 'note', 'title'] })).toBe('ID   TITLE\nc-1  Algebra\nc-2  Logic\n');
    expect(renderTable(page, { columns: ['id', 'note', 'title'], asked: true })).toBe('ID   NOTE  TITLE\nc-1        Algebra\nc-2        Logic\n');
    expect(renderTable([[{ a: null }]], { columns: ['a'] })).toBe('A\n\n');
  });
});

describe('the description cache', () => {
  it('reads max-age, no-cache, and else leaves the 24 hours', () => {
    expect(maxAgeOf('public, max-age=600')).toBe(600);
    expect(maxAgeOf('no-cache')).toBe(0);
    expect(maxAgeOf('no-store')).toBeUndefined();
    expect(maxAgeOf(undefined)).toBeUndefined();
    expect(maxAgeOf('max-age=99999999999')).toBe(30 * 24 * 3600);
  });

  /** A server of one description, whose answers are recorded; `down` makes it unreachable. */
  function describedServer() {
    const text = JSON.stringify(bigDescription(10));
    const seen: HttpRequest[] = [];
    let down = false;
    const http: HttpClient = {
      async request(req) {
        seen.push(req);
        if (down) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
        const revalidated = req.headers?.['if-none-match'] === '"v1"';
        const res: HttpResponse = {
          status: revalidated ? 304 : 200,
          statusText: '',
          headers: { etag: '"v1"', 'cache-control': 'max-age=60', 'content-type': 'application/json' },
          rawHeaders: [],
          body: Buffer.from(revalidated ? '' : text),
          url: String(req.url),
          httpVersion: '1.1',
        };
        return res;
      },
    };
    return { http, seen, setDown: (value: boolean) => (down = value) };
  }

  it('is used while fresh, revalidated with If-None-Match after its max-age, and kept stale with a note when the server is down', async () => {
    const server = describedServer();
    const deps = fakeDeps({ http: server.http, now: 1_000_000_000_000, env: { SCHOOL_BASE_URL: 'http://127.0.0.1:9' } });
    await runApi(deps, ['create-thing1', '--title', 'A', '--dry-run']);
    expect(server.seen).toHaveLength(1);
    await runApi(deps, ['create-thing1', '--title', 'A', '--dry-run']);
    expect(server.seen).toHaveLength(1); // fresh: no request
    deps.setNow(1_000_000_000_000 + 61_000);
    await runApi(deps, ['create-thing1', '--title', 'A', '--dry-run']);
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1].headers?.['if-none-match']).toBe('"v1"');
    deps.setNow(1_000_000_000_000 + 200_000);
    server.setDown(true);
    await runApi(deps, ['create-thing1', '--title', 'A', '--dry-run']);
    expect(deps.io.stderr()).toBe('Could not reach http://127.0.0.1:9/openapi.json (Could not reach the server: connection refused); using the copy cached 2 min ago.\n');
    expect(deps.io.stdout().split('POST http://127.0.0.1:9/api/area1/things1\n')).toHaveLength(5);
  });

  it('checks a request before anything is sent, and sends nothing on a dry run', async () => {
    const server = describedServer();
    const deps = fakeDeps({ http: server.http, env: { SCHOOL_BASE_URL: 'http://127.0.0.1:9' } });
    await expect(runApi(deps, ['create-thing1', '--seats', '900'])).rejects.toThrow('Not sent: --seats must be at most 500 (got 900); --title is required.');
    await expect(runApi(deps, ['update-thing1', '--title', 'x'])).rejects.toThrow("'school api update-thing1' needs <id>.");
    await expect(runApi(deps, ['create-thing1', '--title', 'A'])).rejects.toThrow(/Not logged in/);
    expect(server.seen.map((r) => String(r.url))).toEqual(['http://127.0.0.1:9/openapi.json']);
  });
});
