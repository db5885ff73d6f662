import { mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonText, parseDescription, readDescriptionFile } from '../../src/api/description-text.js';
import { runApi } from '../../src/commands/api/api.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/http/client.js';
import { cachedDescriptionDocument, loadApiDescription } from '../../src/session/api-description.js';
import { descriptionCacheKey, descriptionSource } from '../../src/session/description-source.js';
import { resolveTarget } from '../../src/session/target.js';
import { bigDescription } from '../helpers/big-description.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'school-description-'));
  dirs.push(dir);
  return dir;
}

const YAML_DESCRIPTION = `openapi: 3.0.3
info: { title: Lessons, version: '1' }
paths:
  /api/lessons/{id}:
    parameters:
      - &id { name: id, in: path, required: true, schema: { type: string } }
    get:
      operationId: getLesson
      responses: { '200': { description: OK } }
    patch:
      operationId: updateLesson
      requestBody:
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Lesson' }
      responses: { '200': { description: OK } }
components:
  schemas:
    Lesson:
      type: object
      properties:
        title: { type: string, maxLength: 20 }
`;

/** A server answering every request with one text, recording what it was asked. */
function textServer(text: string, contentType = 'application/json') {
  const seen: HttpRequest[] = [];
  const http: HttpClient = {
    async request(req) {
      seen.push(req);
      const res: HttpResponse = { status: 200, statusText: 'OK', headers: { 'content-type': contentType }, rawHeaders: [], body: Buffer.from(text), url: String(req.url), httpVersion: '1.1' };
      return res;
    },
  };
  return { http, seen };
}

describe('where a description comes from', () => {
  it('takes an https URL, an http URL on this machine, or a file (kept as an absolute path); never plain http elsewhere', () => {
    expect(descriptionSource('https://api.example/v3/openapi.yaml#x')).toEqual({ kind: 'url', location: 'https://api.example/v3/openapi.yaml' });
    expect(descriptionSource('http://127.0.0.1:8080/spec.json')).toEqual({ kind: 'url', location: 'http://127.0.0.1:8080/spec.json' });
    expect(descriptionSource('specs/api.yaml', '/home/ada')).toEqual({ kind: 'file', location: '/home/ada/specs/api.yaml' });
    expect(descriptionSource('file:///srv/api.json')).toEqual({ kind: 'file', location: '/srv/api.json' });
    expect(() => descriptionSource('http://api.example/openapi.json')).toThrow(/plain http:\/\/ API description URL/);
    expect(() => descriptionSource('ftp://api.example/openapi.json')).toThrow(/unsupported API description URL scheme/);
    expect(() => descriptionSource('https://ada:secret@api.example/openapi.json')).toThrow('must not carry a user name or password');
  });

  it('keeps the cache of each source apart, and the default one under the base URL alone', () => {
    const base = 'https://school.example';
    expect(descriptionCacheKey(base, undefined)).toBe(base);
    expect(descriptionCacheKey(base, { kind: 'url', location: `${base}/openapi.json` })).toBe(base);
    const a = descriptionCacheKey(base, { kind: 'file', location: '/a.yaml' });
    const b = descriptionCacheKey(base, { kind: 'url', location: 'https://docs.example/a.yaml' });
    expect(new Set([base, a, b]).size).toBe(3);
  });

  it('reads --description over SCHOOL_API_DESCRIPTION over the profile, and the profile only for its own base URL', async () => {
    const deps = fakeDeps({ env: { SCHOOL_API_DESCRIPTION: 'https://docs.example/env.json' } });
    await deps.state.rememberDescription('default', 'https://school.example', '/kept.yaml');
    const target = (inputs: { description?: string; baseUrl?: string; env?: Record<string, string> }) =>
      resolveTarget(deps.state, { baseUrl: inputs.baseUrl ?? 'https://school.example', env: inputs.env ?? deps.env, ...(inputs.description !== undefined ? { description: inputs.description } : {}) });
    expect((await target({ description: '/flag.json' })).description).toEqual({ kind: 'file', location: '/flag.json', remember: true });
    expect((await target({})).description).toEqual({ kind: 'url', location: 'https://docs.example/env.json' });
    expect((await target({ env: {} })).description).toEqual({ kind: 'file', location: '/kept.yaml' });
    expect((await target({ env: {}, baseUrl: 'https://other.example' })).description).toBeUndefined();
    // An empty --description goes back to the default, and is remembered so.
    expect((await target({ env: {}, description: '' })).description).toEqual({ kind: 'url', location: 'https://school.example/openapi.json', remember: true });
  });
});

describe('the text of a description', () => {
  it('reads JSON with any text in its strings as JSON.parse of its UTF-8 reads it, byte order mark or not', () => {
    const doc = { openapi: '3.1.0', info: { title: 'Écoles 🏫 — 学校', version: '1' }, paths: { '/a': { get: { summary: 'naïve "quotes" \\ and \u0000 control' } } } };
    const text = JSON.stringify(doc, null, 2);
    expect(JSON.parse(jsonText(Buffer.from(text)))).toEqual(doc);
    expect(JSON.parse(jsonText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])))).toEqual(doc);
    expect(jsonText(Buffer.from('{"a":"plain"}'))).toBe('{"a":"plain"}');
    expect(parseDescription(Buffer.from(text), 'x').doc).toEqual(doc);
  });

  it('leaves out of a large pretty-printed file its webhooks and example objects, which no command reads, and nothing else', () => {
    const dir = scratch();
    const doc = {
      openapi: '3.1.0',
      info: { title: 'Écoles', version: '1', description: 'x'.repeat(1_200_000) },
      paths: {
        '/a': {
          // Members of the same names deeper down are the operation's own, and stay.
          'x-webhooks': { kept: true },
          post: {
            requestBody: { content: { 'application/json': { schema: { type: 'object', examples: [{ a: 'é' }] }, examples: { one: { $ref: '#/components/examples/one' } } } } },
            responses: { 200: { description: 'OK' } },
          },
        },
      },
      webhooks: { ping: { post: { summary: '"webhooks": {\n  } ’' } } },
      'x-webhooks': { push: { post: { summary: 'push 🏫' } } },
      components: { schemas: { S: { type: 'string', examples: ['kept ’'] } }, examples: { one: { value: { a: '学校' } } }, parameters: {} },
    };
    const emptied = { ...doc, webhooks: {}, 'x-webhooks': {}, components: { ...doc.components, examples: {} } };
    for (const [eol, indent] of [
      ['\n', '  '],
      ['\r\n', '\t'],
      ['\n', '    '],
    ]) {
      const file = join(dir, 'pretty.json');
      writeFileSync(file, JSON.stringify(doc, null, indent).replace(/\n/g, eol));
      expect(parseDescription(readDescriptionFile(file), 'x', { reread: () => readDescriptionFile(file) }).doc).toEqual(emptied);
      // Bytes not read with room are not rewritten, and are read whole.
      expect(parseDescription(readFileSync(file), 'x').doc).toEqual(doc);
    }
    // Compact, or small: read whole.
    const compact = join(dir, 'compact.json');
    writeFileSync(compact, JSON.stringify(doc));
    expect(parseDescription(readDescriptionFile(compact), 'x', { reread: () => readDescriptionFile(compact) }).doc).toEqual(doc);
    // Indented unevenly, so that what is left would not parse: read again, and parsed whole.
    const odd = join(dir, 'odd.json');
    const uneven = JSON.stringify(doc, null, 2).replace('"x-webhooks": {\n    "push": {', '"x-webhooks": {\n    "a": {\n  },\n  "push": {');
    writeFileSync(odd, uneven);
    const whole = JSON.parse(uneven);
    expect(whole['x-webhooks'].a).toEqual({});
    expect(parseDescription(readDescriptionFile(odd), 'x', { reread: () => readDescriptionFile(odd) }).doc).toEqual(whole);
  });

  it('reads a YAML flow mapping from a file as YAML, non-ASCII text and all, though it starts as JSON does', () => {
    const file = join(scratch(), 'flow.yaml');
    writeFileSync(file, "{openapi: 3.0.3, info: {title: 'Écoles — 学校', version: '1'}, paths: {}}\n");
    const parsed = parseDescription(readDescriptionFile(file), 'x', { reread: () => readDescriptionFile(file) });
    expect(parsed.format).toBe('yaml');
    expect(parsed.doc).toEqual({ openapi: '3.0.3', info: { title: 'Écoles — 学校', version: '1' }, paths: {} });
    // Without a way to read it again, bytes read with room are not rewritten: the same document.
    expect(parseDescription(readDescriptionFile(file), 'x').doc).toEqual(parsed.doc);
  });

  it('reads a file with its escapes written in place, and one with more than its room through a copy, as JSON.parse of its UTF-8 reads both', () => {
    const dir = scratch();
    const words = ['é', '’', '🏫', '学校', 'naïve', '\u00e9 escaped already'];
    for (const [name, count] of [
      ['few.json', 300],
      ['many.json', 40_000],
    ] as const) {
      const paths: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) paths[`/p${i}`] = { get: { summary: `${words[i % words.length]} ${'x'.repeat(i % 300)}`, responses: { 200: { description: 'OK' } } } };
      const doc = { openapi: '3.1.0', info: { title: 'Écoles', version: '1' }, paths };
      const file = join(dir, name);
      writeFileSync(file, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(doc, null, 2))]));
      const parsed = parseDescription(readDescriptionFile(file), 'x', { reread: () => readDescriptionFile(file) });
      expect(parsed.doc).toEqual(doc);
      // What it gives as the document's JSON is the same document, whether or not its bytes were rewritten.
      expect(JSON.parse(typeof parsed.json === 'string' ? parsed.json : parsed.json.toString('utf8'))).toEqual(doc);
    }
  });
});

describe('a description named elsewhere', () => {
  it('is read from a YAML file, remembered by the profile, used from the cache while the file is unchanged, and read again when it changes', async () => {
    const dir = scratch();
    const file = join(dir, 'lessons.yaml');
    writeFileSync(file, YAML_DESCRIPTION);
    const http = textServer('{}');
    const deps = fakeDeps({ http: http.http, env: { SCHOOL_BASE_URL: 'http://127.0.0.1:9' } });
    await runApi(deps, ['--description', file, 'update-lesson', 'l-1', '--title', 'Algebra', '--dry-run']);
    expect(deps.io.stdout()).toContain('PATCH http://127.0.0.1:9/api/lessons/l-1');
    expect(http.seen).toEqual([]); // nothing fetched: the file is the description
    expect(await deps.state.rememberedDescription('default')).toEqual({ baseUrl: 'http://127.0.0.1:9', location: file });
    // Without the flag: the profile's description, from the cache.
    const target = await resolveTarget(deps.state, { baseUrl: 'http://127.0.0.1:9', env: {} });
    const cached = await loadApiDescription(deps, 'http://127.0.0.1:9', { target });
    expect(cached.how).toBe('cache');
    await expect(runApi(deps, ['update-lesson', 'l-1', '--title', 'A title longer than twenty'])).rejects.toThrow('--title must be at most 20 characters long');
    // The file is the document's copy: the cache keeps the index and the detail file, and reads the document from the file.
    const key = descriptionCacheKey('http://127.0.0.1:9', target.description);
    expect(readdirSync(join(deps.state.paths.cacheDir, 'openapi')).filter((f) => !/\.(index\.json|detail\.jsonl)$/.test(f))).toEqual([]);
    expect(Object.keys(((await cachedDescriptionDocument(deps, key)) as { paths: object }).paths)).toEqual(['/api/lessons/{id}']);
    expect(await cached.document()).toEqual(await cachedDescriptionDocument(deps, key));
    // The file changes: read again.
    writeFileSync(file, YAML_DESCRIPTION.replace('getLesson', 'fetchLesson'));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    // Not the document indexed any more: no document until it is read again.
    expect(await cachedDescriptionDocument(deps, key)).toBeUndefined();
    const again = await loadApiDescription(deps, 'http://127.0.0.1:9', { target });
    expect(again.how).toBe('fetched');
    expect(again.index.operations.map((op) => op.command)).toEqual(['fetch-lesson', 'update-lesson']);
  });

  it('is fetched from another origin with no token, even with one at hand', async () => {
    const server = textServer(JSON.stringify(bigDescription(5)));
    const deps = fakeDeps({ http: server.http, env: { SCHOOL_BASE_URL: 'https://school.example', SCHOOL_TOKEN: 'at-secret-123', SCHOOL_API_DESCRIPTION: 'https://docs.example/openapi.json' } });
    await runApi(deps, ['create-thing0', '--title', 'A', '--dry-run']);
    expect(server.seen.map((r) => String(r.url))).toEqual(['https://docs.example/openapi.json']);
    const sent = JSON.stringify(server.seen[0].headers ?? {}).toLowerCase();
    expect(sent).not.toContain('authorization');
    expect(sent).not.toContain('at-secret-123');
    expect(deps.io.stdout()).toContain('POST https://school.example/api/area0/things0');
  });

  it('is refused in one line when the file is missing, not JSON or YAML, not OpenAPI 3, or a YAML alias bomb', async () => {
    const dir = scratch();
    const deps = fakeDeps({ env: { SCHOOL_BASE_URL: 'https://school.example' } });
    const attempt = async (name: string, text?: string) => {
      const file = join(dir, name);
      if (text !== undefined) writeFileSync(file, text);
      const err = await runApi(deps, ['--description', file, '--json']).then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
      expect(err?.message).not.toContain('\n');
      return err;
    };
    expect(await attempt('missing.yaml')).toMatchObject({ code: 'openapi_unavailable', message: expect.stringContaining('missing.yaml: no such file') });
    expect(await attempt('broken.json', '{"openapi": "3.0.0", "paths": {')).toMatchObject({ code: 'openapi_invalid', message: expect.stringMatching(/broken\.json is not valid JSON \(/) });
    expect(await attempt('text.txt', 'key: [unclosed')).toMatchObject({ code: 'openapi_invalid', message: expect.stringMatching(/is not valid JSON or YAML/) });
    expect(await attempt('swagger.yaml', 'swagger: "2.0"\npaths: {}\n')).toMatchObject({ code: 'openapi_invalid', message: expect.stringContaining('is Swagger 2.0; school reads OpenAPI 3') });
    expect(await attempt('other.json', '{"info": {}}')).toMatchObject({ code: 'openapi_invalid', message: expect.stringContaining('has no "paths"') });
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 12 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    const started = Date.now();
    expect(await attempt('bomb.yaml', `openapi: 3.0.0\npaths: {}\n${bomb}\n`)).toMatchObject({ code: 'openapi_invalid' });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('what a description may cost', () => {
  /** 1,000 operations, each with a body that refers to one schema of 5,000 properties. */
  function wideDescription(): Record<string, unknown> {
    const properties = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`field${i}`, { type: 'string', maxLength: 50 }]));
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) {
      paths[`/api/things${i}`] = {
        post: { operationId: `createThing${i}`, requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Wide' } } } }, responses: { 201: { description: 'Created' } } },
      };
    }
    return { openapi: '3.0.3', info: { title: 'Wide', version: '1' }, paths, components: { schemas: { Wide: { type: 'object', properties } } } };
  }

  it('keeps the cache of a description whose 1,000 operations share one 5,000-property schema near the size of the description', async () => {
    const dir = scratch();
    const file = join(dir, 'wide.json');
    const text = JSON.stringify(wideDescription());
    writeFileSync(file, text);
    const deps = fakeDeps({ env: { SCHOOL_BASE_URL: 'https://school.example' } });
    const started = Date.now();
    await runApi(deps, ['--description', file, 'create-thing999', '--field299', 'x', '--dry-run']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(deps.io.stdout()).toContain('"field299": "x"');
    await expect(runApi(deps, ['create-thing7', '--field3', 'x'.repeat(51)])).rejects.toThrow('--field3 must be at most 50 characters long');
    const cacheDir = join(deps.state.paths.cacheDir, 'openapi');
    const detail = readdirSync(cacheDir).find((f) => f.endsWith('.detail.jsonl'))!;
    const { size } = await import('node:fs').then((fs) => fs.statSync(join(cacheDir, detail)));
    // The schema once, not once per operation (which would be 1,000 times the description).
    expect(size).toBeLessThan(2 * text.length);
  });

  it('reads a 3,000-deep chain of allOf references and a 3,000-deep inline allOf without a stack overflow', async () => {
    const chain: Record<string, unknown> = {};
    for (let i = 0; i < 3000; i++) chain[`S${i}`] = { allOf: [{ $ref: `#/components/schemas/S${i + 1}` }], properties: { [`p${i}`]: { type: 'string' } } };
    chain.S3000 = { type: 'object', properties: { last: { type: 'integer' } } };
    // Written as text: JSON.stringify itself recurses, and would overflow on it.
    const inline = `${'{"allOf":['.repeat(3000)}{"type":"object","properties":{"deep":{"type":"string"}}}${']}'.repeat(3000)}`;
    const op = (id: string, schema: unknown) => ({ post: { operationId: id, requestBody: { content: { 'application/json': { schema } } }, responses: { 200: { description: 'OK' } } } });
    const doc = {
      openapi: '3.1.0',
      info: { title: 'Deep', version: '1' },
      paths: { '/chain': op('chain', { $ref: '#/components/schemas/S0' }), '/inline': op('inline', 'INLINE') },
      components: { schemas: chain },
    };
    const dir = scratch();
    const file = join(dir, 'deep.json');
    writeFileSync(file, JSON.stringify(doc).replace('"INLINE"', inline));
    const body = join(dir, 'body.json');
    writeFileSync(body, '{"p0": "x", "last": 1}');
    const deps = fakeDeps({ env: { SCHOOL_BASE_URL: 'https://school.example' } });
    for (const name of ['chain', 'inline']) {
      const outcome = await runApi(deps, ['--description', file, name, '--input', body, '--dry-run']).then(
        () => 'sent',
        (err: Error) => err.message,
      );
      expect(outcome).not.toMatch(/call stack|RangeError/i);
      expect(outcome.split('\n')).toHaveLength(1);
    }
    // The chain is followed until the check cannot go on, which says so; the inline nesting cannot even be kept, and is sent unchecked with a note.
    await expect(runApi(deps, ['chain', '--input', body])).rejects.toThrow('the body could not be checked against the description (its schema nests too deep to check)');
    expect(deps.io.stderr()).toContain('Note: inline: its schemas nest too deep to check; its values are sent unchecked.');
  });
});
