import { requestShapeOf } from '../../src/api/request-shape.js';
import { describe, expect, it } from 'vitest';
import { typedValue } from '../../src/commands/api/flags.js';
import { INDEX_FORMAT, buildIndex, definitionDoc, definitionTable, detailFrom, indexFromText } from '../../src/api/api-index.js';
import { bundleSchema, operationDetail } from '../../src/api/operation-detail.js';
import { kebabCase, scopesNameAreas, missingScopes, readApiModel, routeCommand } from '../../src/api/operations.js';
import { readOperations } from '../../src/mcp/tools.js';
import { listingOf } from '../helpers/described-server.js';
import { CheckTookTooLong, accepter, check } from '../../src/commands/api/checks.js';
import { bigDescription } from '../helpers/big-description.js';

const ok = { 200: { description: 'OK' } };

describe('the operation model: names', () => {
  it('takes x-cli-name, else the operationId in kebab-case, else the method and path', () => {
    const { operations } = readApiModel({
      paths: {
        '/api/courses': { get: { operationId: 'listCourses', responses: ok }, post: { 'x-cli-name': 'new-course', operationId: 'createCourse', responses: ok } },
        '/api/courses/{id}': { get: { responses: ok } },
        '/api/HTMLPages': { get: { operationId: 'getHTMLPage_byID' } },
      },
    });
    expect(operations.map((o) => o.command)).toEqual(['list-courses', 'new-course', 'get-api-courses-id', 'get-html-page-by-id']);
    expect(kebabCase('createCourse')).toBe('create-course');
    expect(routeCommand('DELETE', '/api/courses/{id}/seats')).toBe('delete-api-courses-id-seats');
  });

  it('never gives two operations one name: each of a clash takes its route name, and a note says so', () => {
    const model = readApiModel({
      paths: {
        '/a': { get: { operationId: 'list' } },
        '/b': { get: { operationId: 'List' }, post: { operationId: 'other' } },
        '/get-c': { get: { operationId: 'get-get-c' } },
        '/c': { get: { operationId: 'get_get_c' } },
      },
    });
    const names = model.operations.map((o) => o.command);
    expect(names).toEqual(['get-a', 'get-b', 'other', 'get-get-c', 'get-c']);
    expect(new Set(names).size).toBe(names.length);
    expect(model.notes).toEqual([expect.stringMatching(/^2 operations are named "list": GET \/a is get-a, GET \/b is get-b\.$/), expect.stringMatching(/named "get-get-c"/)]);
  });

  it('never shortens a name, and two long names that agree for 64 characters stay apart', () => {
    const long = 'enterpriseAdminSetGithubActionsDefaultWorkflowPermissionsOrganization';
    const { operations, notes } = readApiModel({
      paths: { '/x': { get: { operationId: long } }, '/y': { get: { operationId: `${long}Repository` } } },
    });
    expect(operations.map((o) => o.command)).toEqual([
      'enterprise-admin-set-github-actions-default-workflow-permissions-organization',
      'enterprise-admin-set-github-actions-default-workflow-permissions-organization-repository',
    ]);
    expect(notes).toEqual([]);
  });

  it('numbers a method-and-path name only when two of those meet, and says so', () => {
    const model = readApiModel({
      paths: { '/a/{b}': { get: { operationId: 'same' } }, '/a/b': { get: { operationId: 'same' } } },
    });
    expect(model.operations.map((o) => o.command)).toEqual(['get-a-b', 'get-a-b-2']);
    expect(model.notes[1]).toMatch(/a number was added: GET \/a\/b is get-a-b-2\.$/);
  });

  it('keeps names the same when an operation is added elsewhere', () => {
    const doc = bigDescription(50);
    const before = readApiModel(doc).operations.map((o) => `${o.method} ${o.path} ${o.command}`);
    (doc.paths as Record<string, unknown>)['/zzz'] = { get: { operationId: 'late' } };
    const after = readApiModel(doc).operations.map((o) => `${o.method} ${o.path} ${o.command}`);
    expect(after.slice(0, before.length)).toEqual(before);
  });
});

describe('the operation model: scopes, areas, parameters, bodies', () => {
  const doc = {
    security: [{ oauth2: ['school:read'] }],
    paths: {
      '/api/courses/{id}': {
        parameters: [
          { name: 'id', in: 'path', schema: { type: 'string' } },
          { name: 'ghost', in: 'path' },
        ],
        get: { tags: ['Courses'], security: [{}, { oauth2: ['courses:read'] }], parameters: [{ $ref: '#/components/parameters/Expand' }] },
        put: { security: [{ oauth2: ['courses:write', 'courses:read'] }, { key: [] }], requestBody: { $ref: '#/components/requestBodies/Course' } },
      },
      '/api/misc': { get: { tags: ['Misc Things'], security: [] }, post: {} },
    },
    components: {
      parameters: { Expand: { name: 'expand', in: 'query', required: true, schema: { type: 'array', items: { type: 'string' } } } },
      requestBodies: { Course: { required: true, content: { 'text/plain': {}, 'application/merge-patch+json': { schema: { type: 'object' } } } } },
    },
  };
  const { operations } = readApiModel(doc);

  it('reads the security requirements as alternatives, and the area from the scope, else the tag, else other', () => {
    const [get, put, misc, post] = operations;
    expect(get).toMatchObject({ scopes: ['courses:read'], scopeSets: [['courses:read']], anonymous: true, area: 'courses' });
    expect(put).toMatchObject({ scopes: ['courses:write', 'courses:read'], anonymous: false, area: 'courses' });
    expect(misc).toMatchObject({ scopes: [], anonymous: true, area: 'misc-things' });
    expect(post).toMatchObject({ scopes: ['school:read'], area: 'school' });
    expect(missingScopes(get, new Set(['openid']))).toEqual(['courses:read']);
    expect(missingScopes(get, new Set(['courses:read']))).toEqual([]);
    // The second alternative names a scheme but no scope: any token meets it.
    expect(missingScopes(put, new Set())).toEqual([]);
    expect(missingScopes({ scopeSets: [['a:write', 'a:read'], ['b:write']] }, new Set(['a:read']))).toEqual(['a:write']);
  });

  it("takes areas from scopes only where the description's scopes read <area>:<verb>; else from tags", () => {
    const areas = (scopes: string[][]) =>
      readApiModel({
        paths: Object.fromEntries(scopes.map((s, i) => [`/p${i}`, { get: { tags: [`Tag ${i}`], security: [{ oauth: s }] } }])),
      }).operations.map((o) => o.area);
    // The Petstore's scopes put the verb first: write:pets is no area.
    expect(areas([['write:pets', 'read:pets'], ['read:pets']])).toEqual(['tag-0', 'tag-1']);
    expect(areas([['https://www.googleapis.com/auth/drive'], ['https://www.googleapis.com/auth/drive.readonly']])).toEqual(['tag-0', 'tag-1']);
    expect(areas([['courses:read'], ['chat:write'], ['identify']])).toEqual(['courses', 'chat', 'tag-2']);
    expect(areas([['repo'], ['user']])).toEqual(['tag-0', 'tag-1']);
    expect(scopesNameAreas(['a:read', 'b', 'c'])).toBe(false);
  });

  it('follows $refs to parameters and bodies, and drops a path parameter the path lacks', () => {
    const [get, put] = operations;
    expect(get.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).toEqual(['path:id:true', 'query:expand:true']);
    // Every media type in order; the first offered is the default, the fields come from the first made of fields.
    expect(put.body).toEqual({
      contentType: 'text/plain',
      json: true,
      schema: { type: 'object' },
      required: true,
      media: [
        { type: 'text/plain', kind: 'raw', schema: undefined },
        { type: 'application/merge-patch+json', kind: 'json', schema: { type: 'object' } },
      ],
    });
  });

  it('is what call --list and school mcp read, under the same operations', () => {
    const big = bigDescription(25);
    const model = readApiModel(big).operations;
    expect(listingOf(big).map((o) => [o.command, o.method, o.path])).toEqual(model.map((o) => [o.command, o.method, o.path]));
    expect(readOperations(big).map((o) => [o.method, o.path, o.scopes])).toEqual(model.map((o) => [o.method, o.path, o.scopes]));
  });
});

describe('operation detail', () => {
  const doc = bigDescription(5);
  const create = readApiModel(doc).operations.find((o) => o.command === 'create-thing0')!;
  const detail = operationDetail(doc, create);

  it('makes a field of every parameter and body property: dotted for nesting, arrays repeated, enums and bounds kept', () => {
    const byName = Object.fromEntries(detail.fields.map((f) => [f.name, f]));
    expect(byName.title).toMatchObject({ location: 'body', type: 'string', required: true, limits: '1 to 200 characters' });
    expect(byName.seats).toMatchObject({ type: 'integer', required: false, limits: '1 to 500' });
    expect(byName.level).toMatchObject({ type: 'string', enum: ['beginner', 'intermediate', 'advanced'] });
    expect(byName['address.city']).toMatchObject({ path: ['address', 'city'], type: 'string' });
    expect(byName.tags).toMatchObject({ type: 'string', array: true });
    expect(detail.bodyIsObject).toBe(true);
  });

  it('finds table columns in a wrapped listing', () => {
    const list = readApiModel(doc).operations.find((o) => o.command === 'list-things0')!;
    expect(operationDetail(doc, list)).toMatchObject({ listKey: 'items', columns: ['title', 'seats', 'level'] });
  });

  it('bundles a schema that stands alone: refs into $defs, loops kept as loops, OpenAPI 3.0 forms converted, bad patterns and $id dropped', () => {
    const loopDoc = {
      components: {
        schemas: {
          Node: {
            type: 'object',
            nullable: true,
            $id: 'https://evil.example/',
            properties: { next: { $ref: '#/components/schemas/Node' }, n: { type: 'integer', minimum: 1, exclusiveMinimum: true }, p: { type: 'string', pattern: '(' } },
          },
        },
      },
    };
    const bundled = bundleSchema(loopDoc, { $ref: '#/components/schemas/Node' });
    expect(bundled).toEqual({
      $ref: '#/$defs/d0',
      $defs: { d0: { type: ['object', 'null'], properties: { next: { $ref: '#/$defs/d0' }, n: { type: 'integer', exclusiveMinimum: 1 }, p: { type: 'string' } } } },
    });
    expect(check(bundled, { next: { next: { n: 1 } } })).toEqual([{ path: ['next', 'next', 'n'], expected: 'must be greater than 1 (got 1)' }]);
    expect(check(bundled, null)).toEqual([]);
  });
});

describe('operation detail: a body of several object forms', () => {
  const common = { type: 'object', properties: { region: { type: 'string' }, size: { type: 'string' } }, required: ['size'] };
  const docOf = (schema: unknown) => ({
    components: { schemas: { Common: common } },
    paths: { '/v2/droplets': { post: { operationId: 'createDroplet', requestBody: { content: { 'application/json': { schema } } } } } },
  });
  const bodyFieldsOf = (schema: unknown) => {
    const doc = docOf(schema);
    return operationDetail(doc, readApiModel(doc).operations[0]).fields.map((f) => [f.name, f.required]);
  };

  it("gives every form's fields, required where every form requires them, when the fields each requires tell the forms apart", () => {
    const single = { allOf: [{ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, { $ref: '#/components/schemas/Common' }] };
    const multiple = { allOf: [{ type: 'object', properties: { names: { type: 'array', items: { type: 'string' } } }, required: ['names'] }, { $ref: '#/components/schemas/Common' }] };
    expect(bodyFieldsOf({ oneOf: [single, multiple] })).toEqual([
      ['name', false],
      ['region', false],
      ['size', true],
      ['names', false],
    ]);
    expect(bodyFieldsOf({ anyOf: [single, multiple] })).toHaveLength(4);
  });

  it('gives none where they do not (a value would fit several forms, or a form requires nothing)', () => {
    const a = { type: 'object', properties: { x: { type: 'string' } } };
    const b = { type: 'object', properties: { y: { type: 'string' } } };
    expect(bodyFieldsOf({ oneOf: [a, b] })).toEqual([]);
    expect(
      bodyFieldsOf({
        oneOf: [
          { ...a, required: ['x'] },
          { ...b, properties: { x: { type: 'string' }, y: { type: 'string' } }, required: ['x', 'y'] },
        ],
      }),
    ).toEqual([]);
  });
});

describe('checks against the schema', () => {
  const doc = bigDescription(5);
  const schema = operationDetail(doc, readApiModel(doc).operations.find((o) => o.command === 'create-thing0')!).bodySchema!;

  it('names each field and what it expects', () => {
    expect(check(schema, { title: 'Algebra', seats: 30 })).toEqual([]);
    const found = check(schema, { seats: 0, level: 'expert', address: { country: 'france' }, extra: 1 });
    expect(found).toEqual(
      expect.arrayContaining([
        { path: ['title'], expected: 'is required' },
        { path: ['seats'], expected: 'must be at least 1 (got 0)' },
        { path: ['level'], expected: 'must be one of "beginner", "intermediate", "advanced" (got "expert")' },
        { path: ['address', 'country'], expected: 'must match the pattern "^[A-Z]{2}$"' },
        { path: ['extra'], expected: 'is not a field the operation takes' },
      ]),
    );
    expect(check(schema, { title: 5 })).toEqual([{ path: ['title'], expected: 'must be of type string (got 5)' }]);
    expect(check(schema, { title: '' })).toEqual([{ path: ['title'], expected: 'must be at least 1 characters long' }]);
  });

  it('lets null through where the description allows it, and names the forms a oneOf or anyOf allows', () => {
    const milestone = { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true };
    const doc = {
      components: { schemas: { Label: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } },
      paths: {
        '/issues/{n}': {
          patch: {
            operationId: 'updateIssue',
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      milestone,
                      assignee: { $ref: '#/components/schemas/Label', nullable: true },
                      state: { type: 'string', enum: ['open', 'closed'], nullable: true },
                      due: { type: ['string', 'null'], format: 'date' },
                      label: { anyOf: [{ $ref: '#/components/schemas/Label' }, { type: 'string', enum: ['bug', 'docs'] }, { type: 'array', items: { type: 'string' } }] },
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const op = readApiModel(doc).operations[0];
    const detail = operationDetail(doc, op);
    const body = detail.bodySchema!;
    expect(check(body, { milestone: null, assignee: null, state: null, due: null })).toEqual([]);
    expect(check(body, { milestone: 3, assignee: { name: 'x' }, state: 'open', due: '2030-01-01' })).toEqual([]);
    expect(check(body, { milestone: true })).toEqual([{ path: ['milestone'], expected: 'must be one of: a string, an integer, or null (got true)' }]);
    expect(check(body, { label: 5 })).toEqual([{ path: ['label'], expected: 'must be one of: an object with name, one of "bug", "docs", or an array of strings (got 5)' }]);
    // A value of the type of one form only is checked as that form: what is wrong inside it is said.
    expect(check(body, { label: { name: 7 } })).toEqual([{ path: ['label', 'name'], expected: 'must be of type string (got 7)' }]);
    expect(check(body, { label: 'feature' })).toEqual([{ path: ['label'], expected: 'must be one of "bug", "docs" (got "feature")' }]);
    const page = {
      oneOf: [
        { type: 'integer', minimum: 1 },
        { type: 'object', properties: { size: { type: 'integer', maximum: 100 } } },
      ],
    };
    expect(check(page, { size: 500 })).toEqual([{ path: ['size'], expected: 'must be at most 100 (got 500)' }]);
    expect(check(page, 0)).toEqual([{ path: [], expected: 'must be at least 1 (got 0)' }]);
    expect(check(page, 'x')).toEqual([{ path: [], expected: 'must be one of: an integer or an object (got "x")' }]);
    // Object forms told apart by a constant property (a discriminator): the one the value names is checked.
    const card = { properties: { object: { const: 'card' }, cvc: { type: 'integer' } }, required: ['object', 'cvc'] };
    const bank = { properties: { object: { const: 'bank' }, iban: { type: 'string' } }, required: ['object', 'iban'] };
    const source = { anyOf: [card, bank] };
    expect(check(source, { object: 'card', cvc: '12x' })).toEqual([{ path: ['cvc'], expected: 'must be of type integer (got "12x")' }]);
    expect(check(source, { object: 'cheque' })).toEqual([{ path: [], expected: 'must be one of: an object with object, cvc or an object with object, iban (got {"object":"cheque"})' }]);
    // A flag of a field that may be null takes the word null.
    const fields = Object.fromEntries(detail.fields.map((f) => [f.name, f]));
    expect(fields.milestone).toMatchObject({ type: 'json', nullable: true });
    expect(fields.state).toMatchObject({ type: 'string', nullable: true });
    expect(typedValue('state', fields.state, 'null')).toBeNull();
    expect(() => typedValue('state', fields.state, 'merged')).toThrow('--state expects one of open, closed, or null, not "merged".');
  });

  it('tries example values within one budget: past it, nothing passes', () => {
    const accepts = accepter(50);
    expect(accepts({ type: 'integer' }, 1)).toBe(true);
    expect(accepts({ type: 'integer' }, 'x')).toBe(false);
    // A pattern that backtracks on the value: the check stops at the budget, and so does every later one.
    const started = Date.now();
    expect(accepts({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(accepts({ type: 'integer' }, 1)).toBe(false);
  });

  it('gives up on a check that takes too long, however deep in a regular expression it is', () => {
    const hostile = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    const started = Date.now();
    expect(() => check(hostile, { name: `${'a'.repeat(40)}!` }, 100)).toThrow(CheckTookTooLong);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The same schema, on values it can decide at once.
    expect(check(hostile, { name: 'aaaa' }, 100)).toEqual([]);
    expect(check(hostile, { name: 'b' }, 100)).toEqual([{ path: ['name'], expected: 'must match the pattern "^(a+)+$"' }]);
    // A description's expression in the keys it allows, and behind a reference, is timed the same.
    const keyed = { type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } } };
    expect(() => check(keyed, { [`${'a'.repeat(40)}!`]: 'x' }, 100)).toThrow(CheckTookTooLong);
    const referred = { $defs: { Name: { type: 'string', pattern: '^(a+)+$' } }, type: 'object', properties: { name: { $ref: '#/$defs/Name' } } };
    expect(() => check(referred, { name: `${'a'.repeat(40)}!` }, 100)).toThrow(CheckTookTooLong);
  });
});

describe('the compact index', () => {
  it('is read back from its text with one entry found by name, the same entries as reading it whole, whatever the summaries hold', () => {
    const doc = bigDescription(50);
    // Summaries that look like the text around an entry: inside a JSON string, its quotes are escaped.
    const tricky = ['"at":[1,2]}]', '{"command":"list-things7","method":"GET"', '"operations":[]', ']}]}'];
    Object.values(doc.paths as Record<string, Record<string, { summary?: string }>>).forEach((item, i) => {
      for (const op of Object.values(item)) op.summary = `${tricky[i % tricky.length]} ${i}`;
    });
    const built = buildIndex(doc);
    const saved = {
      format: INDEX_FORMAT,
      baseUrl: 'https://school.example',
      fetchedAt: 1,
      maxAgeSeconds: 60,
      detailFile: 'x.detail.jsonl',
      definitions: built.definitions,
      notes: ['a "note" ]}]'],
      operations: built.operations.map((op, i) => ({ ...op, at: built.at[i] })),
    };
    // As the cache writes it, and as a revalidation leaves it (its validators after the entries).
    for (const text of [JSON.stringify(saved), JSON.stringify({ ...saved, etag: '"v2" "at":[3,4]}]' })]) {
      const whole = JSON.parse(text);
      const index = indexFromText(text, 'https://school.example')!;
      for (const op of whole.operations) expect(index.entryNamed!(op.command)).toEqual(op);
      expect(index.entryNamed!('no-such-operation')).toBeUndefined();
      expect(index.notes).toEqual(whole.notes);
      expect((index as { etag?: string }).etag).toBe(whole.etag);
      expect(index.operations).toEqual(whole.operations);
      expect(JSON.parse(JSON.stringify(index))).toEqual(whole);
    }
    // One entry found without reading the others: found even when another one is damaged.
    const text = JSON.stringify(saved);
    const lastEntry = text.lastIndexOf('{"command":');
    const damaged = `${text.slice(0, lastEntry)}${text.slice(lastEntry).replace('"method":"', '"method":')}`;
    const first = saved.operations[0];
    expect(indexFromText(damaged, 'https://school.example')!.entryNamed!(first.command)).toEqual(first);
    // Another base URL, another format, a damaged text: no index.
    expect(indexFromText(JSON.stringify(saved), 'https://other.example')).toBeUndefined();
    expect(indexFromText(JSON.stringify({ ...saved, format: INDEX_FORMAT - 1 }), 'https://school.example')).toBeUndefined();
    expect(indexFromText(JSON.stringify(saved).slice(0, -40), 'https://school.example')).toBeUndefined();
    // An index of no operations.
    expect(indexFromText(JSON.stringify({ ...saved, operations: [] }), 'https://school.example')!.operations).toEqual([]);
  });

  it('holds every operation with the place of its detail, and the detail lines parse back', () => {
    const doc = bigDescription(500);
    const built = buildIndex(doc);
    expect(built.operations).toHaveLength(500);
    const bytes = Buffer.from(built.detail);
    const range = (o: number, l: number) => bytes.subarray(o, o + l).toString('utf8');
    const model = readApiModel(doc);
    // Made back from its line and its definitions, each operation's detail is the one made from the whole document.
    const table = definitionTable(range(...built.definitions))!;
    for (const i of [0, 1, 123, 499]) {
      const detail = detailFrom(range, built.at[i], table);
      const { description: _, tags, request, ...made } = detail!;
      expect(tags).toEqual(model.operations[i].tags);
      expect(request).toEqual(requestShapeOf(model.operations[i]));
      expect(made).toEqual(operationDetail(doc, model.operations[i]));
    }
    expect(detailFrom(range, built.at[123], table)!.fields.length).toBeGreaterThan(0);
  });

  it('gives a listing, which places each definition once for every operation, the fields each operation has alone', () => {
    // The first operation refers inside a schema the second refers to whole: placed in that order, the whole one must still be found.
    const body = (ref: string) => ({ content: { 'application/json': { schema: { $ref: ref } } } });
    const doc = {
      openapi: '3.1.0',
      paths: {
        '/inner': { post: { operationId: 'inner', requestBody: body('#/components/schemas/Outer/properties/address'), responses: {} } },
        '/outer': { post: { operationId: 'outer', requestBody: body('#/components/schemas/Outer'), responses: {} } },
        ...(bigDescription(50).paths as Record<string, unknown>),
      },
      components: {
        schemas: {
          ...(bigDescription(50).components as { schemas: Record<string, unknown> }).schemas,
          Outer: { type: 'object', properties: { name: { type: 'string' }, address: { type: 'object', properties: { city: { type: 'string' } } } } },
        },
      },
    };
    const built = buildIndex(doc);
    const bytes = Buffer.from(built.detail);
    const range = (o: number, l: number) => bytes.subarray(o, o + l).toString('utf8');
    const table = definitionTable(range(...built.definitions))!;
    const shared = definitionDoc();
    const listed = built.at.map((at) => detailFrom(range, at, table, shared, { schemas: false }));
    const alone = built.at.map((at) => detailFrom(range, at, table, undefined, { schemas: false }));
    expect(listed).toEqual(alone);
    expect(listed[1]!.fields.map((f) => f.name)).toEqual(['name', 'address.city']);
    // Small enough to read at every start: well under the document's size.
    expect(JSON.stringify(built.operations).length).toBeLessThan(JSON.stringify(doc).length);
  });
});

describe('servers of an operation', () => {
  it("are its own (the operation's, else its path item's), unless they are the document's", () => {
    const doc = {
      servers: [{ url: 'https://api.example/{version}', variables: { version: { default: 'v1' } } }],
      paths: {
        '/a': { servers: [{ url: 'https://api.example/v1' }], get: {}, post: { servers: [{ url: 'https://uploads.example' }] } },
        '/b': { servers: [{ url: 'https://api.example/{region}' }], get: {} },
        '/c': { servers: [{ url: 'https://{host}/x', variables: { host: { default: 'eu.example' } } }], get: {} },
      },
    };
    expect(readApiModel(doc).operations.map((op) => `${op.method} ${op.path} ${op.servers?.join(' ') ?? '-'}`)).toEqual([
      'GET /a -',
      'POST /a https://uploads.example',
      // A variable without a default cannot be filled in: no server known.
      'GET /b -',
      'GET /c https://eu.example/x',
    ]);
  });
});

describe('an example beside the schema', () => {
  it('stays an example: an `id` inside two examples names no schema, and the value is still checked', () => {
    // just-eat.co.uk's and whatsapp's descriptions give object examples holding `id`; a validator
    // walking them as schemas found the same id twice and refused to check anything.
    const item = { type: 'object', properties: { id: { type: 'integer' } }, example: { id: 3 } };
    const schema = bundleSchema({}, { type: 'object', properties: { a: item, b: item }, example: { a: { id: 3 } }, 'x-extra': { id: 3 } });
    expect(check(schema, { a: { id: 1 }, b: { id: 2 } })).toEqual([]);
    expect(check(schema, { a: { id: 'one' } }).map((v) => v.path)).toEqual([['a', 'id']]);
    expect(schema.examples).toEqual([{ a: { id: 3 } }]);
  });
});
