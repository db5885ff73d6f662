// The Swagger Petstore (the `@readme/oas-examples` dev package, pinned by version and checksum in the
// lock file), in OpenAPI 3.0 and 3.1, JSON and YAML, through the built binary against a server of the
// test's own that records every request as it arrived: the listing, help whose examples are sent as
// shown, query arrays, a form body, a multipart upload from @path (3.0) and an octet-stream one (3.1),
// the api_key header, path arguments and the checks that keep a request from being sent; and the
// same bytes on the wire from `school mcp`'s tools of its operations.
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellWords } from '../helpers/described-server.js';
import { type RunResult, expectSuccess, runSchool, userEnv } from './harness.js';
import { type FrontEndCase, requestsFromEachFrontEnd } from './front-ends.js';

const EXAMPLES = dirname(createRequire(import.meta.url).resolve('@readme/oas-examples/package.json'));
const PETSTORE = {
  '3.0': join(EXAMPLES, '3.0', 'json', 'petstore.json'),
  '3.1': join(EXAMPLES, '3.1', 'json', 'petstore.json'),
  '3.0 YAML': join(EXAMPLES, '3.0', 'yaml', 'petstore.yaml'),
  '3.1 YAML': join(EXAMPLES, '3.1', 'yaml', 'petstore.yaml'),
};

interface Received {
  method: string;
  /** The request target exactly as it arrived. */
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

const received: Received[] = [];
let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', target: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  close = () => new Promise<void>((r) => server.close(() => r()));
});
afterAll(() => close());

const tmp = mkdtempSync(join(tmpdir(), 'school-e2e-petstore-'));
const file = (name: string, bytes: Buffer | string) => {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
};

/** Bytes no text decoding keeps: a BOM, NUL, bytes that are no UTF-8, CR LF, and a line that looks like a boundary. */
const IMAGE = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x0d, 0x0a]), Buffer.from('--school-\r\n')]);

for (const [version, description] of Object.entries(PETSTORE)) {
  describe(`the Petstore, OpenAPI ${version}, through --description`, () => {
    let env: ReturnType<typeof userEnv>;
    beforeAll(() => {
      env = userEnv({ SCHOOL_BASE_URL: url, SCHOOL_API_DESCRIPTION: description });
    });

    /** What one `school api … --anonymous` put on the wire. */
    async function sent(args: string[]): Promise<Received> {
      const before = received.length;
      expectSuccess(await runSchool(['api', ...args, '--anonymous'], env));
      expect(received.length).toBe(before + 1);
      return received[before];
    }

    /** A refusal: exit 2, a one-line reason, nothing sent. */
    async function refused(args: string[]): Promise<RunResult> {
      const before = received.length;
      const res = await runSchool(['api', ...args, '--anonymous'], env);
      expect(res.code, res.stderr).toBe(2);
      expect(received.length).toBe(before);
      return res;
    }

    it('lists its 20 operations under their whole names, by tag, with their flags in --json', async () => {
      const rows = JSON.parse(expectSuccess(await runSchool(['api', '--json'], env)).stdout) as Array<Record<string, unknown>>;
      expect(rows.map((r) => r.command).sort()).toEqual(
        [
          'add-pet',
          'create-user',
          'create-users-with-array-input',
          'create-users-with-list-input',
          'delete-order',
          'delete-pet',
          'delete-user',
          'find-pets-by-status',
          'find-pets-by-tags',
          'get-inventory',
          'get-order-by-id',
          'get-pet-by-id',
          'get-user-by-name',
          'login-user',
          'logout-user',
          'place-order',
          'update-pet',
          'update-pet-with-form',
          'update-user',
          'upload-file',
        ].sort(),
      );
      expect(rows.find((r) => r.command === 'update-pet-with-form')).toMatchObject({
        method: 'POST',
        path: '/pet/{petId}',
        media_types: ['application/x-www-form-urlencoded'],
        parameters: [{ name: 'petId', position: 1 }],
        body_fields: [
          { name: 'name', flag: '--name' },
          { name: 'status', flag: '--status' },
        ],
      });
      expect(rows.find((r) => r.command === 'upload-file')).toMatchObject({
        media_types: [version.startsWith('3.0') ? 'multipart/form-data' : 'application/octet-stream'],
      });
      const listing = expectSuccess(await runSchool(['api'], env)).stdout;
      expect(listing).toMatch(/^pet:\n/);
      expect(listing).toMatch(/^ {2}update-pet-with-form +POST +\/pet\/\{petId\} +Updates a pet in the store with form data/m);
      expect(listing).toMatch(/^store:\n/m);
      expect(listing).toMatch(/^user:\n/m);
    });

    it('explains find-pets-by-status, and its example is sent as shown', async () => {
      const help = expectSuccess(await runSchool(['api', 'find-pets-by-status', '--help'], env)).stdout;
      expect(help).toMatch(/^find-pets-by-status: Finds Pets by status\n/);
      expect(help).toContain('Request: GET /pet/findByStatus');
      expect(help).toMatch(/--status <available\|pending\|sold>\.\.\.\s+\(query, required, repeatable\)/);
      const example = shellWords(/\nExample:\n {2}(.*)\n/.exec(help)![1]);
      expect(example.slice(0, 3)).toEqual(['school', 'api', 'find-pets-by-status']);
      const req = await sent(example.slice(2));
      expect(req.target).toBe('/pet/findByStatus?status=available');
    });

    it('sends every help example of the operations it describes, each accepted by the checks', async () => {
      for (const op of ['get-pet-by-id', 'update-pet-with-form', 'delete-pet', 'login-user', 'get-order-by-id', 'update-user', 'place-order']) {
        const help = expectSuccess(await runSchool(['api', op, '--help'], env)).stdout;
        const example = shellWords(/\nExample:\n {2}(.*)\n/.exec(help)![1]);
        expect(example.slice(0, 3), op).toEqual(['school', 'api', op]);
        const req = await sent(example.slice(2));
        expect(req.method, op).toMatch(/^(GET|POST|PUT|DELETE)$/);
      }
    });

    it('repeats the items of an exploded query array, each encoded (findPetsByStatus, findPetsByTags)', async () => {
      const status = await sent(['find-pets-by-status', '--status', 'available', '--status', 'sold']);
      expect(`${status.method} ${status.target}`).toBe('GET /pet/findByStatus?status=available&status=sold');
      const tags = await sent(['find-pets-by-tags', '--tags', 'a,b', '--tags', 'c d&e']);
      expect(tags.target).toBe('/pet/findByTags?tags=a%2Cb&tags=c%20d%26e');
      const res = await refused(['find-pets-by-status', '--status', 'lost']);
      expect(res.stderr).toContain('--status expects one of available, pending, sold, not "lost".');
      expect((await refused(['find-pets-by-status'])).stderr).toContain('Not sent: --status is required.');
    });

    it('sends updatePetWithForm form-encoded from its flags, or from --input of its fields', async () => {
      const fromFlags = await sent(['update-pet-with-form', '7', '--name', 'Rex & Co', '--status', 'sold']);
      expect(`${fromFlags.method} ${fromFlags.target}`).toBe('POST /pet/7');
      expect(fromFlags.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(fromFlags.body.toString()).toBe('name=Rex%20%26%20Co&status=sold');
      const fromInput = await sent(['update-pet-with-form', '7', '--input', file('form.json', '{"name":"Rex & Co","status":"sold"}')]);
      expect(fromInput.body.toString()).toBe(fromFlags.body.toString());
      expect((await refused(['update-pet-with-form', 'seven', '--name', 'Rex'])).stderr).toContain('<petId> must be of type integer (got "seven")');
      expect((await refused(['update-pet-with-form', '7', '--nmae', 'Rex'])).stderr).toContain("(did you mean '--name'?)");
    });

    it('uploads an image byte for byte', async () => {
      if (version.startsWith('3.0')) {
        // multipart/form-data: a text field and the file from @path, with its name.
        const req = await sent(['upload-file', '7', '--additional-metadata', 'front', '--file', `@${file('rex.png', IMAGE)}`]);
        expect(`${req.method} ${req.target}`).toBe('POST /pet/7/uploadImage');
        const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(String(req.headers['content-type']))![1];
        const expected = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="additionalMetadata"\r\n\r\nfront\r\n`),
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rex.png"\r\nContent-Type: application/octet-stream\r\n\r\n`),
          IMAGE,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        expect(req.body.equals(expected)).toBe(true);
      } else {
        // application/octet-stream: the bytes of --input as they are.
        const req = await sent(['upload-file', '7', '--input', file('rex.png', IMAGE)]);
        expect(req.headers['content-type']).toBe('application/octet-stream');
        expect(req.body.equals(IMAGE)).toBe(true);
      }
    });

    it('sends the api_key header of deletePet, and refuses one holding a line break', async () => {
      const req = await sent(['delete-pet', '7', '--api-key', 'special-key']);
      expect(`${req.method} ${req.target}`).toBe('DELETE /pet/7');
      expect(req.headers.api_key).toBe('special-key');
      await refused(['delete-pet', '7', '--api-key', 'a\r\nX-Injected: 1']);
    });

    it('fills path arguments encoded in their segment, and refuses what the path cannot hold', async () => {
      expect((await sent(['get-user-by-name', 'a b/c?d'])).target).toBe('/user/a%20b%2Fc%3Fd');
      for (const bad of ['..', '.', '']) expect((await refused(['get-user-by-name', bad])).stderr).toMatch(/^school: <username> cannot be /);
      expect((await refused(['get-order-by-id', '11'])).stderr).toContain('<orderId> must be at most 10 (got 11)');
    });

    it('sends a JSON body from dotted and repeated flags, and an XML one from --input with --content-type', async () => {
      const req = await sent(['add-pet', '--name', 'Rex', '--photo-urls', 'a.png', '--photo-urls', 'b.png', '--category.id', '3', '--tags', '{"id":1,"name":"good"}']);
      expect(req.headers['content-type']).toBe('application/json');
      expect(JSON.parse(req.body.toString())).toEqual({ name: 'Rex', photoUrls: ['a.png', 'b.png'], category: { id: 3 }, tags: [{ id: 1, name: 'good' }] });
      expect((await refused(['add-pet', '--name', 'Rex'])).stderr).toContain('--photo-urls is required');
      const xml = '<Pet><name>Rex</name></Pet>';
      const put = await sent(['update-pet', '--content-type', 'application/xml', '--input', file('pet.xml', xml)]);
      expect([put.method, put.headers['content-type'], put.body.toString()]).toEqual(['PUT', 'application/xml', xml]);
    });
  });
}

describe('the Petstore through school api and school mcp: the same bytes on the wire', () => {
  /** What identifies a request: all but the headers of the connection and of the program. */
  const wire = (r: Received) => {
    const { 'user-agent': _, host: _h, connection: _c, 'content-length': _l, ...headers } = r.headers;
    return { method: r.method, target: r.target, headers, body: r.body.toString('latin1') };
  };

  it('for query arrays, a form body, a multipart upload, a header and a JSON body', async () => {
    const env = userEnv({ SCHOOL_BASE_URL: url, SCHOOL_API_DESCRIPTION: PETSTORE['3.0'], SCHOOL_TOKEN: 'e2e-token-0123456789' });
    // A tool takes a file's bytes alone and names the part after its field: the file is named so too.
    const cases: FrontEndCase[] = [
      { argv: ['find-pets-by-status', '--status', 'available', '--status', 'sold'], tool: 'findPetsByStatus', args: { status: ['available', 'sold'] } },
      { argv: ['update-pet-with-form', '7', '--name', 'Rex & Co', '--status', 'sold'], tool: 'updatePetWithForm', args: { petId: 7, body: { name: 'Rex & Co', status: 'sold' } } },
      {
        argv: ['upload-file', '7', '--additional-metadata', 'front', '--file', `@${file('file', IMAGE)}`],
        tool: 'uploadFile',
        args: { petId: 7, body: { additionalMetadata: 'front', file: IMAGE.toString('base64') } },
      },
      { argv: ['delete-pet', '7', '--api-key', 'special-key'], tool: 'deletePet', args: { petId: 7, api_key: 'special-key' } },
      { argv: ['place-order', '--pet-id', '3', '--quantity', '2', '--status', 'placed'], tool: 'placeOrder', args: { body: { petId: 3, quantity: 2, status: 'placed' } } },
    ];
    const { fromApi, fromMcp } = await requestsFromEachFrontEnd(cases, () => received, env);
    expect(fromApi).toHaveLength(cases.length);
    expect(fromMcp.map(wire)).toEqual(fromApi.map(wire));
    expect(fromApi[1].body.toString()).toBe('name=Rex%20%26%20Co&status=sold');
  });
});
