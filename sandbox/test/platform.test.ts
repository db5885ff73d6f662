// The platform's API as the sandbox describes and serves it: the description is checked as a
// client would read it, then every operation it lists is called with the right scope, without a
// token and with a token lacking the scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AREAS, DATA_SCOPES, LARGE_DESCRIPTION_OPERATIONS, SEEDED_ORDERS, countOperations, startSandbox, type Sandbox } from '../src/index.js';
import { FIELD_NOTES, RESOURCES } from '../src/catalogue.js';
import { firstViolation } from '../src/schema-check.js';
import { discover, obtainTokens, register } from './testkit.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let sb: Sandbox;
let doc: Json;
let allScopes: string; // every data scope
let coursesOnly: string; // courses:read
let studentsOnly: string; // students:read

beforeAll(async () => {
  sb = await startSandbox({ quiet: true });
  const as = await discover(sb.issuer);
  const reg = await register(as);
  allScopes = (await obtainTokens(as, reg, `openid ${DATA_SCOPES.join(' ')}`)).access_token;
  coursesOnly = (await obtainTokens(as, reg, 'courses:read')).access_token;
  studentsOnly = (await obtainTokens(as, reg, 'students:read', { user: 'alan', password: 'turing' })).access_token;
  doc = await (await fetch(`${sb.baseUrl}/openapi.json`)).json();
});
afterAll(async () => {
  await sb?.close();
});

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Op {
  method: string;
  path: string;
  op: Json;
}

function operationsOf(d: Json): Op[] {
  return Object.entries(d.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

const scopesOf = (op: Json): string[] => (op.security ?? []).flatMap((r: Json) => Object.values(r).flat());
const areaOf = (op: Json) => scopesOf(op)[0]?.split(':')[0];

function resolve(d: Json, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, part) => (node as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], d);
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') found.push(v);
      else refsIn(v, found);
    }
  }
  return found;
}

/** Every keyword used anywhere under the component schemas. */
function keywordsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keywordsIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      found.add(k === 'format' ? `format:${v}` : k);
      keywordsIn(v, found);
    }
  }
  return found;
}

function checkDescription(d: Json, minimum: number) {
  expect(d.openapi).toMatch(/^3\.\d+\.\d+$/);
  expect(d.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
  const ops = operationsOf(d);
  expect(ops.length).toBeGreaterThanOrEqual(minimum);
  const ids = ops.map((o) => o.op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  for (const ref of new Set(refsIn(d))) {
    expect(ref, ref).toMatch(/^#\//);
    expect(resolve(d, ref), `${ref} resolves`).toBeTypeOf('object');
  }
  const tags = new Set((d.tags as Json[]).map((t) => t.name));
  const schemes = d.components.securitySchemes;
  const known = new Set(Object.keys(schemes.oauth2.flows.authorizationCode.scopes));
  for (const { method, path, op } of ops) {
    const where = `${method} ${path}`;
    expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(op.summary, where).toEqual(expect.any(String));
    expect(op.description, where).toEqual(expect.any(String));
    expect(op.tags.length, where).toBeGreaterThan(0);
    for (const t of op.tags) expect(tags.has(t), `${where} tag ${t}`).toBe(true);
    for (const requirement of op.security) {
      for (const [scheme, scopes] of Object.entries(requirement as Record<string, string[]>)) {
        expect(schemes[scheme], where).toBeDefined();
        for (const s of scopes) expect(known.has(s), `${where} ${s}`).toBe(true);
      }
    }
    const declared = (op.parameters ?? [])
      .filter((p: Json) => p.in === 'path')
      .map((p: Json) => p.name)
      .sort();
    expect(declared, where).toEqual([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort());
    expect(
      Object.keys(op.responses).some((s) => /^2/.test(s)),
      where,
    ).toBe(true);
  }
}

describe('the description at /openapi.json', () => {
  it('is structurally valid OpenAPI 3: every $ref resolves, operationIds are unique, parameters match the paths', () => {
    checkDescription(doc, 80);
  });

  it('covers every scope area of the platform, reads with a paginated list, writes where a :write scope exists', () => {
    const ops = operationsOf(doc);
    expect(AREAS).toHaveLength(20);
    for (const area of AREAS) {
      const mine = ops.filter((o) => areaOf(o.op) === area);
      const reads = mine.filter((o) => o.method === 'GET');
      const writes = mine.filter((o) => o.method !== 'GET');
      const readable = DATA_SCOPES.includes(`${area}:read` as never);
      const writable = DATA_SCOPES.includes(`${area}:write` as never);
      expect(mine.length, area).toBeGreaterThanOrEqual(2);
      for (const o of reads) expect(scopesOf(o.op), `${o.path}`).toEqual([`${area}:read`]);
      for (const o of writes) expect(scopesOf(o.op), `${o.method} ${o.path}`).toEqual([`${area}:write`]);
      if (readable) {
        expect(
          reads.some((o) => o.op['x-paginated'] === true && o.op.parameters?.some((p: Json) => p.name === 'per_page')),
          `${area} lists page by page`,
        ).toBe(true);
      } else expect(reads, `${area} has nothing to read`).toEqual([]);
      if (writable) expect(new Set(writes.map((o) => o.method)).size, `${area} writes`).toBeGreaterThanOrEqual(area === 'account' || area === 'appearance' || area === 'school' ? 1 : 2);
      else expect(writes, `${area} is read-only`).toEqual([]);
    }
    const ids = ops.map((o) => o.op.operationId);
    expect(ids).toEqual(
      expect.arrayContaining([
        'listCourses',
        'getCourse',
        'createCourse',
        'updateCourse',
        'deleteCourse',
        'listMembers',
        'createMember',
        'listOrders',
        'getOrder',
        'getSchool',
        'updateSchool',
        'createStorageUpload',
        'deleteStorageUpload',
        'listFormResponses',
        'getAccount',
        'updateAccount',
      ]),
    );
    expect(ids.filter((id) => /^(create|update|delete)(Order|Comment|Form|AnalyticsReport)/.test(id))).toEqual([]);
  });

  it('publishes realistic schemas: enums, formats, nested objects, arrays, bounds, patterns, closed create bodies with examples', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    const used = keywordsIn(schemas);
    for (const k of ['enum', 'format:date-time', 'format:email', 'format:uri', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'items', 'required', 'readOnly', 'example']) {
      expect(used.has(k), k).toBe(true);
    }
    const creates = operationsOf(doc).filter((o) => o.method === 'POST' && o.path !== '/api/echo');
    expect(creates.length).toBeGreaterThanOrEqual(15);
    for (const { path, op } of creates) {
      const name = op.requestBody.content['application/json'].schema.$ref.split('/').pop();
      const schema = schemas[name];
      expect(schema.additionalProperties, `${name} of ${path}`).toBe(false);
      expect(firstViolation(schema.example, schema, doc), `the example of ${name}`).toBeUndefined();
    }
    const writable = Object.entries(schemas).filter(([name]) => /^New|Update$/.test(name));
    for (const [name, schema] of writable) {
      for (const [field, property] of Object.entries(schema.properties as Record<string, Json>)) {
        expect(property.description ?? property.$ref, `${name}.${field} is described`).toEqual(expect.any(String));
      }
    }
    for (const [resource, notes] of Object.entries(FIELD_NOTES)) {
      const spec = RESOURCES.find((r) => r.name === resource);
      for (const field of Object.keys(notes)) expect(spec?.fields[field], `${resource}.${field} exists`).toBeDefined();
    }
    expect(schemas.NewCourse.properties.seats).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 500 }));
    expect(schemas.NewMember.properties.address).toEqual({ $ref: '#/components/schemas/Address' });
    expect(schemas.NewCurriculumModule.properties.lessons.items.properties.kind.enum).toEqual(['video', 'text', 'quiz', 'assignment']);
  });

  it('describes the refusals as the service makes them: 401 and 403 with WWW-Authenticate', () => {
    const { responses } = doc.components;
    expect(responses.InvalidToken.headers['WWW-Authenticate']).toBeDefined();
    expect(responses.Forbidden.headers['WWW-Authenticate']).toBeDefined();
    for (const { op } of operationsOf(doc).filter((o) => scopesOf(o.op).length)) {
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
    }
  });
});

/** An id of a record the collection holds, read through the API with every scope. */
async function someId(collection: string): Promise<string> {
  const body = await (await call('GET', collection, allScopes)).json();
  const list = Object.values(body).find(Array.isArray) as Json[];
  const id = list[0]?.id;
  if (typeof id !== 'string') throw new Error(`no record at ${collection}`);
  return id;
}

function call(method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${sb.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

function bodyFor(op: Json): unknown {
  const content = op.requestBody?.content;
  if (!content) return undefined;
  if (!content['application/json']) return 'echo';
  const schema = resolve(doc, content['application/json'].schema.$ref) as Json;
  return schema.example;
}

/** The concrete path for an operation: ids of existing records (a fresh one for a delete). */
async function concretePath({ method, path }: Op): Promise<string> {
  if (!path.includes('{id}')) return path;
  const collection = path.slice(0, path.indexOf('/{id}'));
  if (method === 'DELETE') {
    const create = doc.paths[collection]?.post;
    const created = await (await call('POST', collection, allScopes, bodyFor(create))).json();
    return path.replace('{id}', created.id);
  }
  return path.replace('{id}', await someId(collection));
}

describe('every described operation is served', () => {
  it('with the scope: a 2xx answer', async () => {
    const failures: string[] = [];
    for (const o of operationsOf(doc)) {
      const path = await concretePath(o);
      const res = await call(o.method, path, allScopes, bodyFor(o.op));
      if (!(res.status >= 200 && res.status < 300) || !(String(res.status) in o.op.responses)) {
        failures.push(`${o.method} ${path}: ${res.status} ${await res.text()}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('without a token: reads served as anonymous, writes refused without a challenge', async () => {
    const failures: string[] = [];
    for (const o of operationsOf(doc)) {
      if (!scopesOf(o.op).length) continue;
      const path = await concretePath(o);
      const res = await call(o.method, path, undefined, bodyFor(o.op));
      const body = res.status === 204 ? {} : await res.json();
      const challenged = res.headers.get('www-authenticate');
      const ok =
        o.method === 'GET'
          ? (res.status === 200 && body.anonymous !== false) || (res.status === 404 && body.error === 'not_found' && !o.op['x-paginated'])
          : res.status === 403 && body.error === 'forbidden' && body.scope === scopesOf(o.op)[0];
      if (!ok || challenged) failures.push(`${o.method} ${path}: ${res.status} ${JSON.stringify(body)} ${challenged ?? ''}`);
    }
    expect(failures).toEqual([]);
  });

  it('with a token lacking the scope: 403 insufficient_scope naming it, with a challenge', async () => {
    const failures: string[] = [];
    for (const o of operationsOf(doc)) {
      const [scope] = scopesOf(o.op);
      if (!scope) continue;
      const token = scope.startsWith('courses:') ? studentsOnly : coursesOnly;
      const path = await concretePath(o);
      const res = await call(o.method, path, token, bodyFor(o.op));
      const body = await res.json();
      const h = res.headers.get('www-authenticate') ?? '';
      const ok =
        res.status === 403 &&
        body.error === 'insufficient_scope' &&
        body.scope === scope &&
        h.includes('error="insufficient_scope"') &&
        h.includes(`scope="${scope}"`) &&
        h.includes(`resource_metadata="${sb.baseUrl}/.well-known/oauth-protected-resource"`);
      if (!ok) failures.push(`${o.method} ${path}: ${res.status} ${JSON.stringify(body)} ${h}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('the data behind the operations', () => {
  it('pages the seeded orders with RFC 8288 Link headers, three pages at the default size', async () => {
    const seen: string[] = [];
    let url: string | undefined = `${sb.baseUrl}/api/orders`;
    let pages = 0;
    while (url) {
      const res: Response = await fetch(url, { headers: { authorization: `Bearer ${allScopes}` } });
      const body = await res.json();
      expect(body).toMatchObject({ anonymous: false, page: pages + 1, per_page: 10, total: SEEDED_ORDERS });
      seen.push(...body.orders.map((o: Json) => o.id));
      pages += 1;
      url = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    }
    expect(pages).toBe(Math.ceil(SEEDED_ORDERS / 10));
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(SEEDED_ORDERS);
    const last = await call('GET', '/api/orders?page=3&per_page=10', allScopes);
    expect(last.headers.get('link')).toContain('rel="prev"');
    expect(last.headers.get('link')).not.toContain('rel="next"');
  });

  it('filters lists by enum parameters, keeping the filter in the links, and refuses a value outside the enum naming the parameter', async () => {
    const paid = await call('GET', '/api/orders?status=paid&per_page=5', allScopes);
    const body = await paid.json();
    expect(body.orders.length).toBeGreaterThan(0);
    expect(body.orders.every((o: Json) => o.status === 'paid')).toBe(true);
    expect(paid.headers.get('link')).toContain('status=paid');
    const bad = await call('GET', '/api/orders?status=shipped', allScopes);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', field: 'status' });
    const big = await call('GET', '/api/members?per_page=1000', allScopes);
    expect(await big.json()).toMatchObject({ error: 'invalid_request', field: 'per_page', error_description: 'per_page: must be at most 100' });
  });

  it('refuses an invalid body with 400 naming the field, nested and in arrays too', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/courses', { title: 'Algebra', seats: 501 }, 'seats'],
      ['POST', '/api/courses', { title: 'Algebra', room: 'B12' }, 'room'],
      ['POST', '/api/courses', { seats: 30 }, 'title'],
      ['POST', '/api/members', { email: 'not-an-email', role: 'student' }, 'email'],
      ['POST', '/api/members', { email: 'a@example.edu', role: 'student', address: { line1: 'x', city: 'y', country: 'France' } }, 'address.country'],
      ['POST', '/api/curriculum/modules', { course_id: 'c-101', title: 'T', lessons: [{ title: 'L', kind: 'podcast' }] }, 'lessons[0].kind'],
      ['POST', '/api/coupons', { code: 'lower case', kind: 'percent' }, 'code'],
      ['PATCH', '/api/posts/p-1', {}, 'body'],
      ['PATCH', '/api/posts/p-1', { id: 'p-99' }, 'id'],
      ['PATCH', '/api/appearance/theme', { primary_color: 'blue' }, 'primary_color'],
      ['POST', '/api/storage/uploads', { filename: '../etc/passwd', content_type: 'text/plain', size_bytes: 1 }, 'filename'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(method, path, allScopes, body);
      const answer = await res.json();
      expect([method, path, res.status, answer.error, answer.field]).toEqual([method, path, 400, 'invalid_request', field]);
      expect(answer.error_description).toMatch(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `));
    }
    const text = await fetch(`${sb.baseUrl}/api/events`, { method: 'POST', headers: { authorization: `Bearer ${allScopes}`, 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
  });

  it('creates, reads, changes and deletes a record', async () => {
    const created = await call('POST', '/api/events', allScopes, { title: 'Exam', starts_at: '2026-06-01T09:00:00Z', visibility: 'private' });
    expect(created.status).toBe(201);
    const event = await created.json();
    expect(event).toMatchObject({ title: 'Exam', status: 'scheduled', timezone: 'Europe/London' });
    expect(created.headers.get('location')).toBe(`${sb.baseUrl}/api/events/${event.id}`);
    expect((await call('GET', `/api/events/${event.id}`)).status).toBe(404);
    const changed = await call('PATCH', `/api/events/${event.id}`, allScopes, { capacity: 80, status: 'cancelled' });
    expect(await changed.json()).toMatchObject({ id: event.id, title: 'Exam', capacity: 80, status: 'cancelled' });
    expect(await (await call('GET', `/api/events/${event.id}`, allScopes)).json()).toMatchObject({ anonymous: false, capacity: 80 });
    expect((await call('DELETE', `/api/events/${event.id}`, allScopes)).status).toBe(204);
    expect((await call('GET', `/api/events/${event.id}`, allScopes)).status).toBe(404);
    expect((await call('DELETE', `/api/events/${event.id}`, allScopes)).status).toBe(404);
  });

  it("updates and deletes the hand-written areas' records too: courses keep their shape", async () => {
    const course = await (await call('POST', '/api/courses', allScopes, { title: 'Algebra', seats: 30 })).json();
    expect(course).toMatchObject({ title: 'Algebra', seats: 30, visibility: 'private' });
    expect(await (await call('PATCH', `/api/courses/${course.id}`, allScopes, { visibility: 'public' })).json()).toMatchObject({ id: course.id, visibility: 'public' });
    expect((await (await call('GET', '/api/courses')).json()).courses.map((c: Json) => c.id)).toContain(course.id);
    expect((await call('DELETE', `/api/courses/${course.id}`, allScopes)).status).toBe(204);
    expect((await call('GET', `/api/courses/${course.id}`, allScopes)).status).toBe(404);
    expect((await call('PUT', '/api/courses/c-101', allScopes)).status).toBe(405);
  });

  it('shows anonymous callers what the platform shows them, and no more', async () => {
    const posts = await (await call('GET', '/api/posts?per_page=100')).json();
    const all = await (await call('GET', '/api/posts?per_page=100', allScopes)).json();
    expect(posts).toMatchObject({ anonymous: true, total: all.posts.filter((p: Json) => p.status === 'published').length });
    expect(posts.total).toBeGreaterThan(0);
    expect(posts.total).toBeLessThan(all.total);
    expect(posts.posts.every((p: Json) => p.status === 'published')).toBe(true);
    expect(await (await call('GET', '/api/members')).json()).toMatchObject({ anonymous: true, total: 0, members: [] });
    expect(await (await call('GET', '/api/school')).json()).toEqual({
      anonymous: true,
      name: 'Babbage Institute of Computing',
      subdomain: 'babbage',
      locale: 'en',
      website: 'https://babbage.school.example',
    });
    expect(await (await call('GET', '/api/account')).json()).toEqual({ anonymous: true });
    expect(await (await call('GET', '/api/students/s-1/enrollments')).json()).toMatchObject({ anonymous: true, enrollments: [] });
    expect((await call('GET', '/api/students/s-9/enrollments', allScopes)).status).toBe(404);
  });

  it("answers the account of the token's user, and changes only that one", async () => {
    expect(await (await call('GET', '/api/account', allScopes)).json()).toMatchObject({ anonymous: false, sub: sb.users[0]!.sub, email: 'ada@example.edu' });
    const changed = await call('PATCH', '/api/account', allScopes, { locale: 'de', notifications: { email_digest: 'never' } });
    expect(await changed.json()).toMatchObject({ sub: sb.users[0]!.sub, locale: 'de', notifications: { email_digest: 'never' } });
    const other = await (await call('GET', '/api/account', studentsOnly)).json();
    expect(other).toMatchObject({ error: 'insufficient_scope', scope: 'account:read' });
  });
});

describe('variants of the description', () => {
  it('cli-names gives some operations an x-cli-name', async () => {
    const named = await startSandbox({ quiet: true, variants: ['cli-names'] });
    try {
      const d = await (await fetch(`${named.baseUrl}/openapi.json`)).json();
      expect(d.paths['/api/courses'].post['x-cli-name']).toBe('new-course');
      expect(d.paths['/api/courses'].get['x-cli-name']).toBe('courses');
      expect(operationsOf(d).filter((o) => o.op['x-cli-name']).length).toBeGreaterThanOrEqual(3);
      expect(doc.paths['/api/courses'].post['x-cli-name']).toBeUndefined();
    } finally {
      await named.close();
    }
  });

  it(`large-description describes ${LARGE_DESCRIPTION_OPERATIONS} operations, valid like the rest, and serves the synthetic ones`, async () => {
    const large = await startSandbox({ quiet: true, variants: ['large-description'] });
    try {
      const d = await (await fetch(`${large.baseUrl}/openapi.json`)).json();
      expect(countOperations(d)).toBe(LARGE_DESCRIPTION_OPERATIONS);
      checkDescription(d, LARGE_DESCRIPTION_OPERATIONS);
      const synthetic = operationsOf(d).filter((o) => o.path.startsWith('/api/synthetic/'));
      expect(synthetic.length).toBe(LARGE_DESCRIPTION_OPERATIONS - countOperations(doc));
      const read = synthetic.find((o) => o.method === 'GET')!;
      const res = await fetch(`${large.baseUrl}${read.path}`);
      expect([res.status, (await res.json()).anonymous]).toEqual([200, true]);
      const write = synthetic.find((o) => o.method === 'POST')!;
      const refused = await fetch(`${large.baseUrl}${write.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
      expect(refused.status).toBe(403);
    } finally {
      await large.close();
    }
  });
});
