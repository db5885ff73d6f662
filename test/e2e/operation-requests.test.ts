import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_SHAPES } from '../helpers/request-shapes.js';
import { SCHOOL_BIN, expectSuccess, runSchool, userEnv, useSandbox } from './harness.js';
import { type FrontEndCase, requestsFromEachFrontEnd } from './front-ends.js';

interface Received {
  method: string;
  /** The request target exactly as it arrived, before any parsing. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A server of the test's own: the description at /openapi.json, every other request recorded as it arrived. */
async function describedApi() {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/openapi.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(REQUEST_SHAPES));
        return;
      }
      received.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const sandbox = useSandbox();
const tmp = mkdtempSync(join(tmpdir(), 'school-e2e-request-'));
const file = (name: string, bytes: Buffer | string) => {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
};

describe('school api sends each operation as its description says (the built binary)', () => {
  let api: Awaited<ReturnType<typeof describedApi>>;
  let env: ReturnType<typeof userEnv>;
  beforeAll(async () => {
    api = await describedApi();
    env = userEnv({ SCHOOL_BASE_URL: api.url });
  });
  afterAll(() => api.close());

  /** What one `school api … --anonymous` put on the wire. */
  async function sent(args: string[]): Promise<Received> {
    const before = api.received.length;
    expectSuccess(await runSchool(['api', ...args, '--anonymous'], env));
    expect(api.received.length).toBe(before + 1);
    return api.received[before];
  }

  it('fills path arguments in path order, object parameters from dotted flags, explode false as commas', async () => {
    const req = await sent(['delete-lesson', 'c1', 'l1', '--filter.status', 'open', '--opt-fields', 'name', '--opt-fields', 'notes']);
    expect(`${req.method} ${req.target}`).toBe('DELETE /api/courses/c1/lessons/l1?filter[status]=open&opt_fields=name,notes');
  });

  it('gives a form body field flags and sends it form-encoded, arrays repeated, deepObject where the encoding asks', async () => {
    const req = await sent(['create-charge', '--amount', '100', '--metadata', '{"plan":"pro"}', '--tags', 'a', '--tags', 'b']);
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.body.toString()).toBe('amount=100&metadata[plan]=pro&tags=a&tags=b');
    // Checked against the schema before sending, like a JSON body.
    const refused = await runSchool(['api', 'create-charge', '--amount', '0', '--anonymous'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--amount must be at least 1');
  });

  it('keeps merge-patch+json, and sends an octet-stream --input byte for byte', async () => {
    const patch = await sent(['patch-item', '7', '--title', 'T']);
    expect([patch.headers['content-type'], patch.body.toString()]).toEqual(['application/merge-patch+json', '{"title":"T"}']);
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x20, 0x20, 0x7d, 0x0a, 0x00, 0xff, 0xfe, 0x0d, 0x0a]);
    const upload = await sent(['upload-file', 'n.bin', '--input', file('raw.bin', bytes)]);
    expect(upload.headers['content-type']).toBe('application/octet-stream');
    expect(upload.body.equals(bytes)).toBe(true);
  });

  it('sends a multipart file from @path', async () => {
    const req = await sent(['attach', '--note', 'hi', '--file', `@${file('grades.csv', 'a,b\n')}`]);
    expect(String(req.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.body.toString()).toContain('Content-Disposition: form-data; name="file"; filename="grades.csv"\r\nContent-Type: text/csv\r\n\r\na,b\n\r\n');
  });

  it("lets x-multi-segment hold slashes, and refuses '..', '.' and '' as a path argument (exit 2), nothing sent", async () => {
    const ref = await sent(['get-ref', 'o', 'heads/feature/x']);
    expect(ref.target).toBe('/repos/o/git/ref/heads/feature/x');
    const before = api.received.length;
    for (const bad of ['..', '.', '']) {
      const res = await runSchool(['api', 'delete-lesson', 'c1', bad, '--anonymous'], env);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/<lessonId> cannot be /);
      expect(res.stderr.trim().split('\n')[0]).toMatch(/Nothing was sent\.$/);
    }
    expect((await runSchool(['api', 'get-ref', 'o', 'heads/../x', '--anonymous'], env)).code).toBe(2);
    expect(api.received.length).toBe(before);
  });

  it('shows the request on a dry run as it would be sent', async () => {
    const res = expectSuccess(await runSchool(['api', 'create-charge', '--amount', '5', '--expand', 'customer', '--dry-run', '--json'], env));
    expect(JSON.parse(res.stdout)).toMatchObject({
      method: 'POST',
      url: `${api.url}/v1/charges`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'amount=5&expand[0]=customer',
    });
  });
});

describe('school api and school mcp put the same bytes on the wire for the same operation and values', () => {
  let api: Awaited<ReturnType<typeof describedApi>>;
  let env: ReturnType<typeof userEnv>;
  beforeAll(async () => {
    api = await describedApi();
    env = userEnv({ SCHOOL_TOKEN: 'e2e-token-0123456789', SCHOOL_BASE_URL: api.url });
  });
  afterAll(() => api.close());

  /** What identifies a request: all but the headers of the connection and of the program. */
  const wire = (r: Received) => {
    const { 'user-agent': _, host: _h, connection: _c, 'content-length': _l, ...headers } = r.headers;
    return { method: r.method, target: r.target, headers, body: r.body.toString('latin1') };
  };

  it('for path, query, header, cookie, form, merge-patch and multipart requests', async () => {
    const cases: FrontEndCase[] = [
      {
        argv: ['delete-lesson', 'c 1', 'l/1', '--filter.status', 'open', '--opt-fields', 'a', '--opt-fields', 'b', '--x-trace', 't-1', '--tz', 'UTC'],
        tool: 'deleteLesson',
        args: { courseId: 'c 1', lessonId: 'l/1', filter: { status: 'open' }, opt_fields: ['a', 'b'], 'X-Trace': 't-1', tz: ['UTC'] },
      },
      {
        argv: ['create-charge', '--amount', '100', '--metadata', '{"plan":"pro"}', '--tags', 'a', '--tags', 'b'],
        tool: 'createCharge',
        args: { body: { amount: 100, metadata: { plan: 'pro' }, tags: ['a', 'b'] } },
      },
      { argv: ['patch-item', '7', '--title', 'T'], tool: 'patchItem', args: { id: 7, body: { title: 'T' } } },
      { argv: ['get-ref', 'o', 'heads/x y'], tool: 'getRef', args: { owner: 'o', ref: 'heads/x y' } },
      // A tool takes a file's bytes alone and names the part after its field: the file is named so too.
      { argv: ['attach', '--note', 'hi', '--file', `@${file('file', 'x,y\n')}`], tool: 'attach', args: { body: { note: 'hi', file: Buffer.from('x,y\n').toString('base64') } } },
    ];
    const { fromApi, fromMcp } = await requestsFromEachFrontEnd(cases, () => api.received, env);
    expect(fromApi).toHaveLength(cases.length);
    expect(fromMcp.map(wire)).toEqual(fromApi.map(wire));
    expect(fromApi.every((r) => r.headers.authorization === 'Bearer e2e-token-0123456789')).toBe(true);
  });
});

describe("a path segment of '..' is refused from every front-end, against the sandbox", () => {
  const apiEvents = () => sandbox.events.filter((e) => e.type === 'api');

  it('school api', async () => {
    const env = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
    const before = apiEvents().length;
    const res = await runSchool(['api', 'get-course', '..', '--anonymous'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^school: <id> cannot be '\.\.': /);
    expect(apiEvents().length).toBe(before);
  });

  it('school mcp, spawned and driven by an MCP client', async () => {
    const env = userEnv();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SCHOOL_BIN, 'mcp', '--base-url', sandbox.baseUrl, '--toolsets', 'courses'],
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    try {
      const before = apiEvents().length;
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('getCourse');
      for (const id of ['..', '.', '']) {
        const res = (await client.callTool({ name: 'getCourse', arguments: { id } })) as { isError?: boolean; content: Array<{ text: string }> };
        expect(res.isError).toBe(true);
        expect(res.content[0].text).toMatch(/^The path parameter id cannot be /);
      }
      expect(apiEvents().length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe("a description's own path with its dots percent-encoded is refused from every front-end", () => {
  // `/lessons/%2e%2E` is `/lessons/..` to a server that normalizes URLs (WHATWG, RFC 3986 §6.2.2.2):
  // the DELETE would act on the course.
  const description = {
    openapi: '3.0.3',
    info: { title: 'Encoded dots', version: '1' },
    paths: {
      '/api/courses/{id}/lessons/%2e%2E': {
        delete: { operationId: 'dropLessons', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 204: { description: 'Deleted' } } },
      },
    },
  };
  let api: Awaited<ReturnType<typeof describedApi>>;
  let env: ReturnType<typeof userEnv>;
  beforeAll(async () => {
    api = await describedApi();
    env = userEnv({ SCHOOL_BASE_URL: api.url, SCHOOL_API_DESCRIPTION: file('encoded-dots.json', JSON.stringify(description)) });
  });
  afterAll(() => api.close());

  it('school api and school mcp send nothing', async () => {
    const res = await runSchool(['api', 'drop-lessons', 'c1', '--anonymous'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("holds a '..' segment: not sent.");
    const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', '--allow-write'], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    try {
      const called = (await client.callTool({ name: 'dropLessons', arguments: { id: 'c1' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(called.isError).toBe(true);
      expect(called.content[0].text).toContain("holds a '..' segment");
    } finally {
      await client.close();
    }
    expect(api.received).toHaveLength(0);
  });
});
