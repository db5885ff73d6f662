// The platform's data areas, served from the table in catalogue.ts: one route per operation of
// each resource, each guarded by its area's scope, with seeded records, pagination with RFC 8288
// Link headers, filters, and bodies checked against the same schemas /openapi.json publishes.
import { randomUUID } from 'node:crypto';

import { DEFAULT_PER_PAGE, FIELD_NOTES, MAX_PER_PAGE, RESOURCES, SHARED_SCHEMAS, itemPath, type OperationKind, type Rec, type ResourceSpec } from './catalogue.js';
import { firstViolation, type Schema, type Violation } from './schema-check.js';
import { DATA_SCOPES } from './scopes.js';
import type { SandboxUser } from './users.js';

/** What a route needs of the request it answers; api.ts provides it after checking the token. */
export interface PlatformCall {
  method: string;
  url: URL;
  /** The token's subject and scopes; undefined for an anonymous request. */
  token: { sub: string | undefined } | undefined;
  /** Applies the scope rule (anonymous reads served, anonymous writes refused); false when it answered. */
  guard(scope: string, anonymousAllowed: boolean): boolean;
  /** The JSON object body, or undefined once it has answered 415 or 400. */
  readJson(): Promise<Record<string, unknown> | undefined>;
  discardBody(): Promise<void>;
  send(status: number, body: unknown, headers?: Record<string, string>): void;
  sendEmpty(status: number): void;
}

export interface Route {
  spec: ResourceSpec;
  kind: OperationKind;
  method: string;
  /** The described path, e.g. /api/members/{id}. */
  path: string;
  pattern: RegExp;
}

const hasScope = (scope: string) => (DATA_SCOPES as readonly string[]).includes(scope);
export const readScopeOf = (spec: ResourceSpec) => (hasScope(`${spec.area}:read`) ? `${spec.area}:read` : undefined);
export const writeScopeOf = (spec: ResourceSpec) => (hasScope(`${spec.area}:write`) ? `${spec.area}:write` : undefined);

const METHOD_OF: Record<OperationKind, string> = { list: 'GET', get: 'GET', create: 'POST', update: 'PATCH', delete: 'DELETE' };

/** The path an operation of the resource lives at. */
function pathOf(spec: ResourceSpec, kind: OperationKind): string {
  if (spec.kind !== 'collection') return spec.path;
  return kind === 'list' || kind === 'create' ? spec.path : itemPath(spec);
}

function patternOf(path: string): RegExp {
  const source = path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  return new RegExp(`^${source}$`);
}

/** Every route of the table, in table order. */
export const ROUTES: Route[] = RESOURCES.flatMap((spec) =>
  spec.operations.map((kind) => {
    const path = pathOf(spec, kind);
    return { spec, kind, method: METHOD_OF[kind], path, pattern: patternOf(path) };
  }),
);

const ANONYMOUS_FLAG: Schema = { type: 'boolean', readOnly: true, description: 'True when the answer was made for a request without a token' };

/** An update body: a singleton's whole example, else the first field of the create example. */
function updateExample(spec: ResourceSpec): Rec | undefined {
  if (!spec.example) return undefined;
  if (spec.kind === 'singleton') return spec.example;
  const [name, value] = Object.entries(spec.example)[0]!;
  return { [name]: value };
}

/** The component schemas of the table: each resource's record, and its new, update and list shapes. */
export function platformSchemas(): Record<string, Schema> {
  const schemas: Record<string, Schema> = structuredClone(SHARED_SCHEMAS);
  for (const spec of RESOURCES) {
    const ref = { $ref: `#/components/schemas/${spec.name}` };
    const fields = Object.fromEntries(
      Object.entries(spec.fields).map(([name, schema]) => {
        const note = FIELD_NOTES[spec.name]?.[name];
        return [name, note && schema.description === undefined ? { ...schema, description: note } : schema];
      }),
    );
    const hasId = 'id' in spec.serverFields;
    schemas[spec.name] = {
      type: 'object',
      description: spec.about,
      required: hasId ? ['id', ...spec.required] : [...spec.required],
      properties: { ...spec.serverFields, ...fields, anonymous: ANONYMOUS_FLAG },
    };
    if (spec.kind === 'collection' && Object.keys(spec.fields).length) {
      schemas[`New${spec.name}`] = {
        type: 'object',
        description: `A new ${spec.noun}`,
        required: spec.required,
        additionalProperties: false,
        properties: fields,
        ...(spec.example ? { example: spec.example } : {}),
      };
    }
    if (spec.operations.includes('update')) {
      schemas[`${spec.name}Update`] = {
        type: 'object',
        description: `Changes to the ${spec.noun}: only the fields sent change`,
        minProperties: 1,
        additionalProperties: false,
        properties: fields,
        ...(updateExample(spec) ? { example: updateExample(spec) } : {}),
      };
    }
    if (spec.operations.includes('list')) {
      schemas[`${spec.name}List`] = {
        type: 'object',
        description: `One page of ${spec.nouns}`,
        required: ['anonymous', 'page', 'per_page', 'total', spec.key],
        properties: {
          anonymous: ANONYMOUS_FLAG,
          page: { type: 'integer', minimum: 1 },
          per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE },
          total: { type: 'integer', minimum: 0, description: 'How many records match, on every page' },
          [spec.key]: { type: 'array', items: ref },
        },
      };
    }
  }
  return schemas;
}

const PAGE_SCHEMA: Schema = { type: 'integer', minimum: 1 };
const PER_PAGE_SCHEMA: Schema = { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE };

function badRequest(call: PlatformCall, violation: Violation) {
  call.send(400, { error: 'invalid_request', error_description: `${violation.field}: ${violation.message}`, field: violation.field });
}

/** A query value as its schema's type would read it: digits become a number for integer parameters. */
function queryValue(raw: string, schema: Schema): unknown {
  return schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

function nowIso(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface Platform {
  /** The methods served at a path (empty when the path is not the table's). */
  methodsAt(path: string): string[];
  /** Answers a request to a path of the table; false when no route matches the method. */
  serve(call: PlatformCall): Promise<boolean>;
  /** The live records of a resource (shared with api.ts's hand-written course and student routes). */
  records(name: string): Rec[];
  /** The first way `value` breaks the component schema `name`. */
  violation(name: string, value: unknown): Violation | undefined;
}

export function createPlatform(baseUrl: string, users: SandboxUser[]): Platform {
  const root = { components: { schemas: platformSchemas() } };
  const stores = new Map<string, Rec[]>(RESOURCES.map((spec) => [spec.name, structuredClone(spec.seed())]));
  const accounts = new Map<string, Rec>(
    users.map((u) => [
      u.sub,
      {
        sub: u.sub,
        name: u.name,
        email: u.email,
        locale: 'en',
        timezone: 'Europe/London',
        notifications: { email_digest: 'weekly', product_updates: true },
      },
    ]),
  );
  const records = (name: string) => stores.get(name)!;

  const visibleTo = (spec: ResourceSpec, token: PlatformCall['token']) => (record: Rec) => {
    if (token) return true;
    if (spec.anonymous === 'all') return true;
    if (spec.anonymous === 'none') return false;
    return spec.anonymous(record);
  };

  /** A singleton's record: the account follows the token's user. */
  function singleton(spec: ResourceSpec, call: PlatformCall): Rec | undefined {
    if (spec.name === 'Account') return call.token?.sub !== undefined ? accounts.get(call.token.sub) : undefined;
    return records(spec.name)[0];
  }

  function parentMissing(spec: ResourceSpec, parentId: string, call: PlatformCall): boolean {
    const parentSpec = RESOURCES.find((r) => r.name === spec.parent!.resource)!;
    // Anonymous callers learn no more than an empty list: the records are filtered by their own rule.
    if (records(parentSpec.name).some((r) => r.id === parentId)) return false;
    call.send(404, { error: 'not_found', error_description: `no ${parentSpec.noun} ${parentId}` });
    return true;
  }

  function list(spec: ResourceSpec, call: PlatformCall, params: string[]) {
    const q = call.url.searchParams;
    const parentId = spec.kind === 'nested' ? params[0]! : undefined;
    const checks: Array<[string, Schema]> = [['page', PAGE_SCHEMA], ['per_page', PER_PAGE_SCHEMA], ...spec.filters.map((f): [string, Schema] => [f.name, f.schema])];
    const values: Record<string, unknown> = {};
    for (const [name, schema] of checks) {
      const raw = q.get(name);
      if (raw === null) continue;
      const value = queryValue(raw, schema);
      const violation = firstViolation(value, schema, root, name);
      if (violation) return badRequest(call, violation);
      values[name] = value;
    }
    if (parentId !== undefined && parentMissing(spec, parentId, call)) return;
    const page = (values.page as number | undefined) ?? 1;
    const perPage = (values.per_page as number | undefined) ?? DEFAULT_PER_PAGE;
    const matching = records(spec.name)
      .filter(visibleTo(spec, call.token))
      .filter((r) => parentId === undefined || r[spec.parent!.field] === parentId)
      .filter((r) => spec.filters.every((f) => values[f.name] === undefined || r[f.name] === values[f.name]));
    const pages = Math.max(1, Math.ceil(matching.length / perPage));
    const pageUrl = (n: number) => {
      const u = new URL(call.url.pathname, baseUrl);
      for (const f of spec.filters) if (values[f.name] !== undefined) u.searchParams.set(f.name, String(values[f.name]));
      u.searchParams.set('page', String(n));
      u.searchParams.set('per_page', String(perPage));
      return u.href;
    };
    const links = [`<${pageUrl(1)}>; rel="first"`, `<${pageUrl(pages)}>; rel="last"`];
    if (page > 1) links.push(`<${pageUrl(Math.min(page - 1, pages))}>; rel="prev"`);
    if (page < pages) links.push(`<${pageUrl(page + 1)}>; rel="next"`);
    call.send(
      200,
      {
        anonymous: !call.token,
        page,
        per_page: perPage,
        total: matching.length,
        [spec.key]: matching.slice((page - 1) * perPage, page * perPage),
      },
      { Link: links.join(', ') },
    );
  }

  function notFound(spec: ResourceSpec, call: PlatformCall, id: string) {
    call.send(404, { error: 'not_found', error_description: `no ${spec.noun} ${id}` });
  }

  async function validBody(call: PlatformCall, schema: string): Promise<Record<string, unknown> | undefined> {
    const body = await call.readJson();
    if (!body) return undefined;
    const violation = firstViolation(body, { $ref: `#/components/schemas/${schema}` }, root);
    if (violation) {
      badRequest(call, violation);
      return undefined;
    }
    return body;
  }

  /** Fields the server fills in on a new record. */
  function serverSet(spec: ResourceSpec, id: string): Rec {
    const now = nowIso();
    const set: Rec = {};
    for (const name of Object.keys(spec.serverFields)) {
      if (['created_at', 'joined_at', 'updated_at', 'submitted_at'].includes(name)) set[name] = now;
    }
    if ('upload_url' in spec.serverFields) {
      // A pre-signed address on the storage host, as the platform hands out; the sandbox stores no bytes.
      set.upload_url = `https://uploads.school.example/${id}`;
      set.expires_at = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    return set;
  }

  async function serveRoute(route: Route, call: PlatformCall, params: string[]): Promise<void> {
    const { spec, kind } = route;
    const read = readScopeOf(spec);
    const write = writeScopeOf(spec);
    if (kind === 'list' || kind === 'get') {
      if (!call.guard(read!, true)) return;
      if (kind === 'list') return list(spec, call, params);
      if (spec.kind === 'singleton') {
        const record = singleton(spec, call);
        if (!call.token) {
          const shown = Object.fromEntries(Object.entries(record ?? {}).filter(([k]) => spec.anonymousFields?.includes(k)));
          return call.send(200, { anonymous: true, ...shown });
        }
        if (!record) return call.send(404, { error: 'not_found', error_description: `no ${spec.noun} for this token` });
        return call.send(200, { anonymous: false, ...record });
      }
      const id = params[0]!;
      const record = records(spec.name).find((r) => r.id === id && visibleTo(spec, call.token)(r));
      if (!record) return notFound(spec, call, id);
      return call.send(200, { anonymous: !call.token, ...record });
    }

    if (!call.guard(write!, false)) return call.discardBody();
    if (kind === 'delete') {
      await call.discardBody();
      const id = params[0]!;
      const store = records(spec.name);
      const index = store.findIndex((r) => r.id === id);
      if (index < 0) return notFound(spec, call, id);
      store.splice(index, 1);
      return call.sendEmpty(204);
    }
    if (kind === 'create') {
      const body = await validBody(call, `New${spec.name}`);
      if (!body) return;
      const id = `${spec.idPrefix}${randomUUID().slice(0, 8)}`;
      const record: Rec = { id, ...structuredClone(spec.defaults ?? {}), ...body, ...serverSet(spec, id) };
      records(spec.name).push(record);
      return call.send(201, record, { Location: `${baseUrl}${spec.path}/${id}` });
    }
    // update
    const body = await validBody(call, `${spec.name}Update`);
    if (!body) return;
    const record = spec.kind === 'singleton' ? singleton(spec, call) : records(spec.name).find((r) => r.id === params[0]);
    if (!record) return spec.kind === 'singleton' ? call.send(404, { error: 'not_found', error_description: `no ${spec.noun} for this token` }) : notFound(spec, call, params[0]!);
    Object.assign(record, body);
    if ('updated_at' in spec.serverFields) record.updated_at = nowIso();
    return call.send(200, record);
  }

  return {
    methodsAt(path) {
      return [...new Set(ROUTES.filter((r) => r.pattern.test(path)).map((r) => r.method))];
    },
    async serve(call) {
      const path = call.url.pathname;
      for (const route of ROUTES) {
        if (route.method !== call.method) continue;
        const m = route.pattern.exec(path);
        if (!m) continue;
        let params: string[];
        try {
          params = m.slice(1).map((p) => decodeURIComponent(p));
        } catch {
          call.send(404, { error: 'not_found', error_description: 'no such record' });
          return true;
        }
        await serveRoute(route, call, params);
        return true;
      }
      return false;
    },
    records,
    violation: (name, value) => firstViolation(value, { $ref: `#/components/schemas/${name}` }, root),
  };
}
