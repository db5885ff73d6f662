// The rules of the one API client, through each front-end of the built binary, against a small
// hostile API on loopback: a next link to another origin on a later page, a next link back to
// the first page, and path parameters that try to climb out of their operation's path.
import { readFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SCHOOL_BIN, runSchool, userEnv } from './harness.js';

const TOKEN = 'hostile-api-token-0123456789';

interface Seen {
  /** The request target exactly as received (path and query). */
  target: string;
  authorized: boolean;
}

/** What the second page links to next: another origin, or the first page again. */
let scenario: 'foreign' | 'back-to-first' = 'foreign';
const seen: Seen[] = [];
const seenElsewhere: Seen[] = [];
let api: Server;
let elsewhere: Server;
let apiUrl = '';
let elsewhereUrl = '';

const DOC = {
  openapi: '3.1.0',
  info: { title: 'hostile', version: '1' },
  paths: {
    '/api/things': { get: { operationId: 'listThings', 'x-paginated': true, responses: { 200: { description: 'ok' } } } },
    '/api/things/{id}': { get: { operationId: 'getThing', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } },
  },
};

function answer(req: IncomingMessage, res: ServerResponse): void {
  const target = req.url ?? '';
  if (target === '/openapi.json') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(DOC));
    return;
  }
  seen.push({ target, authorized: req.headers.authorization === `Bearer ${TOKEN}` });
  res.setHeader('content-type', 'application/json');
  if (target === '/api/things') res.setHeader('link', '</api/things?page=2>; rel="next"');
  if (target === '/api/things?page=2') {
    res.setHeader('link', scenario === 'foreign' ? `<${elsewhereUrl}/api/things?page=3>; rel="next"` : `<${apiUrl}/api/things>; rel="next"`);
  }
  res.end(JSON.stringify({ target }));
}

const listen = (server: Server) => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));

beforeAll(async () => {
  api = createServer(answer);
  elsewhere = createServer((req, res) => {
    seenElsewhere.push({ target: req.url ?? '', authorized: Boolean(req.headers.authorization) });
    res.end('{}');
  });
  apiUrl = await listen(api);
  elsewhereUrl = await listen(elsewhere);
});
afterAll(async () => {
  await Promise.all([api, elsewhere].map((s) => new Promise((r) => s.close(r))));
});
beforeEach(() => {
  seen.length = 0;
  seenElsewhere.length = 0;
});

const tokenEnv = () => userEnv({ SCHOOL_TOKEN: TOKEN, SCHOOL_BASE_URL: apiUrl });

describe('call --paginate against a hostile API', () => {
  it('ends with an error on a next link to another origin on page 3, sending nothing there', async () => {
    scenario = 'foreign';
    const res = await runSchool(['call', '/api/things', '--paginate'], tokenEnv());
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`school: page 3: the next link points to ${elsewhereUrl}, another origin than ${apiUrl}; not following it.\n`);
    expect(seen.map((s) => s.target)).toEqual(['/api/things', '/api/things?page=2']);
    expect(seen.every((s) => s.authorized)).toBe(true);
    expect(seenElsewhere).toEqual([]);
  });

  it('ends with an error on a next link back to the first page', async () => {
    scenario = 'back-to-first';
    const res = await runSchool(['call', '/api/things', '--paginate'], tokenEnv());
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('school: page 3: the next link repeats /api/things, already fetched; stopping to avoid a loop.\n');
    expect(seen.map((s) => s.target)).toEqual(['/api/things', '/api/things?page=2']);
  });
});

describe('school mcp against a hostile API', () => {
  async function connect(env: ReturnType<typeof userEnv>) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp'], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'e2e-host', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }
  const text = (res: Record<string, unknown>) => ((res.content ?? []) as Array<{ text: string }>).map((c) => c.text).join('\n');

  it('ends a listing with an error result on a next link to another origin on page 3, or back to the first page', async () => {
    const client = await connect(tokenEnv());
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['listThings', 'getThing']));
      scenario = 'foreign';
      const foreign = await client.callTool({ name: 'listThings', arguments: {} });
      expect(foreign.isError).toBe(true);
      expect(text(foreign)).toContain(`The listing stopped: page 3: the next link points to ${elsewhereUrl}, another origin than ${apiUrl}; not following it`);
      expect(seenElsewhere).toEqual([]);

      scenario = 'back-to-first';
      const loop = await client.callTool({ name: 'listThings', arguments: {} });
      expect(loop.isError).toBe(true);
      expect(text(loop)).toContain('page 3: the next link repeats /api/things, already fetched');
      expect(seen.map((s) => s.target)).toEqual(['/api/things', '/api/things?page=2', '/api/things', '/api/things?page=2']);
    } finally {
      await client.close();
    }
  });

  it("sends a path parameter inside the operation path, refuses one that is '.' or '..', and audits the path sent", async () => {
    const env = tokenEnv();
    const client = await connect(env);
    const ids = ['..', '../..', 'a/b', '%2F', '.'];
    try {
      for (const id of ids) {
        const res = await client.callTool({ name: 'getThing', arguments: { id } });
        // A dot-segment would name the collection or its parent on a server that normalizes URLs: refused, not sent.
        expect(Boolean(res.isError), id).toBe(id === '.' || id === '..');
      }
    } finally {
      await client.close();
    }
    const expected = ['/api/things/..%2F..', '/api/things/a%2Fb', '/api/things/%252F'];
    expect(seen.map((s) => s.target)).toEqual(expected);
    expect(seen.every((s) => s.authorized)).toBe(true);
    const audit = readFileSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { tool: string; path: string });
    expect(audit.filter((l) => l.tool === 'getThing' && l.path !== null).map((l) => l.path)).toEqual(expected);
    expect(audit.filter((l) => l.tool === 'getThing' && l.path === null).map((l) => (l as { refused?: string }).refused)).toEqual(['invalid_request', 'invalid_request']);
  });
});
