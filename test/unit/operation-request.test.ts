import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runApi } from '../../src/commands/api/api.js';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { planOperation } from '../../src/mcp/server.js';
import { buildCatalogue } from '../../src/mcp/tools.js';
import { fakeDeps } from '../helpers/fake-deps.js';
import { REQUEST_SHAPES as DOC } from '../helpers/request-shapes.js';

const BASE = 'http://127.0.0.1:9';

/** The description served, and every other request recorded and answered 200. */
function server(doc: unknown = DOC) {
  const sent: HttpRequest[] = [];
  const http: HttpClient = {
    async request(req) {
      const description = String(req.url).endsWith('/openapi.json');
      if (!description) sent.push(req);
      return {
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'application/json' },
        rawHeaders: [],
        body: Buffer.from(description ? JSON.stringify(doc) : '{}'),
        url: String(req.url),
        httpVersion: '1.1',
      };
    },
  };
  return { http, sent };
}

async function dryRun(argv: string[], doc: unknown = DOC): Promise<{ method: string; url: string; headers: Record<string, string>; body?: unknown }> {
  const deps = fakeDeps({ http: server(doc).http, env: { SCHOOL_BASE_URL: BASE } });
  await runApi(deps, [...argv, '--dry-run', '--json']);
  return JSON.parse(deps.io.stdout());
}

/** What `school api … --anonymous` puts on the wire. */
async function sentByApi(argv: string[]): Promise<HttpRequest> {
  const s = server();
  const deps = fakeDeps({ http: s.http, env: { SCHOOL_BASE_URL: BASE } });
  await runApi(deps, [...argv, '--anonymous']);
  expect(s.sent).toHaveLength(1);
  return s.sent[0];
}

const tmp = mkdtempSync(join(tmpdir(), 'school-request-'));
const file = (name: string, bytes: Buffer | string) => {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
};

describe('school api builds what the description says', () => {
  it('takes path arguments in path order, object parameters as dotted flags or JSON, explode false as commas', async () => {
    const req = await dryRun(['delete-lesson', 'c1', 'l1', '--filter.status', 'open', '--filter.created.gt', '5', '--opt-fields', 'name', '--opt-fields', 'notes', '--x-trace', 't']);
    expect(req.method).toBe('DELETE');
    expect(req.url).toBe(`${BASE}/api/courses/c1/lessons/l1?filter[status]=open&filter[created][gt]=5&opt_fields=name,notes`);
    expect(req.headers['x-trace']).toBe('t');
    expect(req.headers.cookie).toBeUndefined();
    const withCookie = await dryRun(['delete-lesson', 'c1', 'l1', '--tz', 'Europe/Paris', '--tz', 'UTC']);
    expect(withCookie.headers.cookie).toBe('tz=Europe%2FParis,UTC');
    const whole = await dryRun(['delete-lesson', 'c1', 'l1', '--filter', '{"status":"open"}']);
    expect(whole.url).toBe(`${BASE}/api/courses/c1/lessons/l1?filter[status]=open`);
    // The schema's integer is checked: a dotted flag is typed as its property.
    await expect(dryRun(['delete-lesson', 'c1', 'l1', '--filter.created.gt', 'soon'])).rejects.toThrow('--filter.created.gt expects an integer, not "soon".');
  });

  it('takes an array property of an object parameter one item per dotted flag, typed, and names it in a refusal', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Filters', version: '1' },
      paths: {
        '/leagues': {
          get: {
            operationId: 'listLeagues',
            parameters: [
              {
                name: 'filter',
                in: 'query',
                style: 'deepObject',
                explode: true,
                schema: { type: 'object', properties: { id: { type: 'array', items: { type: 'integer' } }, name: { type: 'array', items: { type: 'string' } } } },
              },
            ],
            responses: { 200: { description: 'OK' } },
          },
        },
      },
    };
    const req = await dryRun(['list-leagues', '--filter.id', '3', '--filter.id', '4', '--filter.name', 'LCK'], doc);
    expect(req.url).toBe(`${BASE}/leagues?filter[id][0]=3&filter[id][1]=4&filter[name][0]=LCK`);
    // The whole array as JSON, as before.
    expect((await dryRun(['list-leagues', '--filter.name', '["LCK","LEC"]'], doc)).url).toBe(`${BASE}/leagues?filter[name][0]=LCK&filter[name][1]=LEC`);
    await expect(dryRun(['list-leagues', '--filter.id', 'x'], doc)).rejects.toThrow('--filter.id expects an integer, not "x".');
    // A refusal of a property names the dotted flag that sets it, not the parameter.
    await expect(dryRun(['list-leagues', '--filter', '{"name":"LCK"}'], doc)).rejects.toThrow('Not sent: --filter.name must be of type array (got "LCK").');
  });

  it("refuses a path argument that is empty, '.' or '..', naming it (exit 2), and lets x-multi-segment hold slashes", async () => {
    for (const bad of ['..', '.', '']) {
      await expect(dryRun(['delete-lesson', 'c1', bad])).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^<lessonId> cannot be /) });
    }
    expect((await dryRun(['get-ref', 'o', 'heads/feature/x'])).url).toBe(`${BASE}/repos/o/git/ref/heads/feature/x`);
    expect((await dryRun(['delete-lesson', 'c1', 'a/b'])).url).toBe(`${BASE}/api/courses/c1/lessons/a%2Fb`);
    await expect(dryRun(['get-ref', 'o', 'heads/../x'])).rejects.toMatchObject({ exitCode: 2 });
  });

  it('gives a form body field flags, checks them, and writes it as the encoding says', async () => {
    const req = await dryRun(['create-charge', '--amount', '100', '--currency', 'eur', '--metadata', '{"plan":"pro"}', '--tags', 'a', '--tags', 'b', '--expand', 'customer']);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.body).toBe('amount=100&currency=eur&metadata[plan]=pro&tags=a&tags=b&expand[0]=customer');
    await expect(dryRun(['create-charge', '--amount', '0'])).rejects.toThrow('Not sent: --amount must be at least 1');
    await expect(dryRun(['create-charge', '--currency', 'eur'])).rejects.toThrow(/--amount is required/);
    // --input with a form media type takes the JSON object of its fields.
    const input = await dryRun(['create-charge', '--input', file('charge.json', '{"amount":5,"tags":["x"]}'), '--currency', 'usd']);
    expect(input.body).toBe('amount=5&tags=x&currency=usd');
    await expect(dryRun(['create-charge', '--input', file('charge.txt', 'amount=5')])).rejects.toThrow(/is not JSON: the body of 'school api create-charge' is application\/x-www-form-urlencoded/);
  });

  it('keeps the media type of the description, and --content-type chooses another it offers', async () => {
    const merge = await dryRun(['patch-item', '7', '--title', 'T']);
    expect([merge.headers['content-type'], merge.body]).toEqual(['application/merge-patch+json', { title: 'T' }]);
    const patch = await dryRun(['patch-item', '7', '--content-type', 'application/json-patch+json', '--input', file('patch.json', '[{"op":"remove","path":"/title"}]')]);
    expect([patch.headers['content-type'], patch.body]).toEqual(['application/json-patch+json', [{ op: 'remove', path: '/title' }]]);
    await expect(dryRun(['patch-item', '7', '--content-type', 'text/csv', '--title', 'x'])).rejects.toThrow('--content-type text/csv is not offered');
  });

  it('asks for a required body of another media type as a file', async () => {
    await expect(dryRun(['upload-file', 'n.bin'])).rejects.toThrow('Not sent: the request body (application/octet-stream) is required: give it with --input <file>.');
  });

  it('sends a body of another media type byte for byte', async () => {
    const bytes = Buffer.from('{ "a" :  1 }\n\u00ff', 'latin1');
    const req = await sentByApi(['upload-file', 'n.bin', '--input', file('raw.bin', bytes)]);
    expect(req.headers?.['content-type']).toBe('application/octet-stream');
    expect(Buffer.from(req.body as Uint8Array).equals(bytes)).toBe(true);
  });

  it('reads a multipart file field from @path', async () => {
    const req = await sentByApi(['attach', '--note', 'hi', '--file', `@${file('grades.csv', 'a,b\n1,2\n')}`]);
    const type = req.headers?.['content-type'] ?? '';
    const boundary = /boundary=(.+)$/.exec(type)?.[1];
    expect(type.startsWith('multipart/form-data; boundary=')).toBe(true);
    expect(Buffer.from(req.body as Uint8Array).toString()).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="grades.csv"\r\nContent-Type: text/csv\r\n\r\na,b\n1,2\n\r\n--${boundary}--\r\n`,
    );
    await expect(dryRun(['attach', '--file', 'grades.csv'])).rejects.toThrow('--file is a file: give it as @path, or @- for standard input.');
  });

  it('refuses a server on another origin with a token, and sends there without one', async () => {
    await expect(dryRun(['upload-elsewhere', '--a', 'x'])).rejects.toThrow('POST /uploads is served by https://uploads.example, not http://127.0.0.1:9: the token is sent to http://127.0.0.1:9 only.');
    const req = await sentByApi(['upload-elsewhere', '--a', 'x']);
    expect(String(req.url)).toBe('https://uploads.example/uploads');
    expect(req.headers?.authorization).toBeUndefined();
  });
});

describe('school api and the MCP operation tools send the same bytes', () => {
  const catalogue = buildCatalogue(DOC, { allowWrite: true, toolsets: undefined });
  const tool = (operationId: string) => {
    const op = catalogue.operations.find((o) => o.operationId === operationId);
    if (!op) throw new Error(`no tool for ${operationId}`);
    return op;
  };
  const cases: Array<{ operationId: string; argv: string[]; args: Record<string, unknown> }> = [
    {
      operationId: 'deleteLesson',
      argv: ['delete-lesson', 'c 1', 'l/1', '--filter.status', 'open', '--opt-fields', 'a', '--opt-fields', 'b', '--x-trace', 't-1', '--tz', 'Europe/Paris', '--tz', 'UTC'],
      args: { courseId: 'c 1', lessonId: 'l/1', filter: { status: 'open' }, opt_fields: ['a', 'b'], 'X-Trace': 't-1', tz: ['Europe/Paris', 'UTC'] },
    },
    {
      operationId: 'createCharge',
      argv: ['create-charge', '--amount', '100', '--metadata', '{"plan":"pro","x y":"1&2"}', '--tags', 'a', '--tags', 'b'],
      args: { body: { amount: 100, metadata: { plan: 'pro', 'x y': '1&2' }, tags: ['a', 'b'] } },
    },
    { operationId: 'patchItem', argv: ['patch-item', '7', '--title', 'T'], args: { id: 7, body: { title: 'T' } } },
    { operationId: 'getRef', argv: ['get-ref', 'o', 'heads/x y'], args: { owner: 'o', ref: 'heads/x y' } },
    {
      // A file's name is part of its value: a tool takes the bytes alone, and names the part after its field.
      operationId: 'attach',
      argv: ['attach', '--note', 'hi', '--file', `@${file('file', 'x,y\n')}`],
      args: { body: { note: 'hi', file: Buffer.from('x,y\n').toString('base64') } },
    },
  ];
  for (const { operationId, argv, args } of cases) {
    it(operationId, async () => {
      const wire = await sentByApi(argv);
      const plan = planOperation(tool(operationId), args, BASE);
      const url = new URL(String(wire.url));
      expect(plan.method).toBe(wire.method);
      expect(plan.target).toBe(wire.path?.slice(new URL(BASE).pathname.replace(/\/$/, '').length) ?? `${url.pathname}${url.search}`);
      const { 'user-agent': _, ...headers } = wire.headers ?? {};
      expect(plan.headers).toEqual(headers);
      const body = wire.body === undefined ? undefined : Buffer.from(wire.body as Uint8Array);
      expect(plan.body?.toString('latin1')).toBe(body?.toString('latin1'));
    });
  }

  it("refuses '..' as a path parameter of a tool, naming it, before anything is sent", () => {
    expect(() => planOperation(tool('deleteLesson'), { courseId: 'c1', lessonId: '..' }, BASE)).toThrow("The path parameter lessonId cannot be '..'");
    expect(() => planOperation(tool('uploadElsewhere'), { body: { a: 'x' } }, BASE)).toThrow(/served by https:\/\/uploads\.example/);
  });
});
