/**
 * The operation model: every operation of an API description (`/openapi.json`) with the one name
 * it has on the command line, its method, path, texts, parameters, body, scopes and area. `school
 * api`, `call --list`, completion and `school mcp` all read operations through here, so an
 * operation is the same operation everywhere. The document comes from a server: every part of
 * unexpected shape is skipped, never thrown on, and texts are kept as sent (each front-end makes
 * them safe for where they go).
 */

import { type EncodingShape, type MediaShape, type ParamShape, type ParamStyle, fieldMedia, mediaKind } from './request-shape.js';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** The most operations read from a document: beyond that, a description is not one a person wrote. */
const MAX_OPERATIONS = 20_000;
/** The most parameters read of one operation. */
const MAX_PARAMETERS = 200;

type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ModelParameter extends ParamShape {
  in: ParameterLocation;
  required: boolean;
  description?: string;
  /** The parameter's schema as the document has it (`$ref`s not followed; a `content` parameter's media schema). */
  schema: unknown;
  deprecated?: boolean;
}

/** One media type the body may be sent as, with its schema as the document has it. */
interface ModelMedia extends MediaShape {
  schema: unknown;
}

interface ModelBody {
  /** The media type the body is sent as unless another is asked for: the first the description offers. */
  contentType: string;
  /** True when the body's fields come from a JSON (`application/json`, `…+json`, `*\/*`) media type. */
  json: boolean;
  /** The schema of the fields' media type (see `fieldMedia`), as the document has it (`$ref`s not followed). */
  schema: unknown;
  required: boolean;
  /** Every media type offered, in the description's order. */
  media: ModelMedia[];
}

export interface ModelOperation {
  /** The command name: `x-cli-name`, else the operationId in kebab-case, else made from the method and path; unique. */
  command: string;
  /** Upper case. */
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags: string[];
  /** Every scope any of the operation's security requirements names. */
  scopes: string[];
  /** The alternatives: any one requirement, all of its scopes, lets the request through. */
  scopeSets: string[][];
  /** True when the operation also answers requests without a token. */
  anonymous: boolean;
  /** The scope area (the part of a scope before `:`) where the document's scopes name areas (scopesNameAreas), else the first tag, else `other`. */
  area: string;
  /** True when the operation answers page by page (`x-paginated`, or a `Link` header in its success response). */
  paginated: boolean;
  deprecated: boolean;
  parameters: ModelParameter[];
  body?: ModelBody;
  /** The schema of the first 2xx JSON answer, as the document has it. */
  responseSchema?: unknown;
  /** The operation's own `servers`, else its path item's (URLs with their variables' defaults filled in). */
  servers?: string[];
}

export interface ApiModel {
  operations: ModelOperation[];
  /** What was changed to make the names work, said once where the operations are listed. */
  notes: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const textOf = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** Follows a local JSON pointer (`#/components/schemas/Course`) in the document. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  if (ref === '#') return doc;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    let key = raw;
    // Most segments are plain names: decoded only when they hold an escape.
    if (raw.includes('%') || raw.includes('~')) {
      try {
        key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        return undefined;
      }
    }
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** How many `$ref`s in a row are followed before the chain is taken for a loop. */
const MAX_REF_HOPS = 16;

/**
 * Resolves the local pointers of one document, each pointer once: an operation's parameters,
 * bodies and answers mostly point at a few shared components (GitHub's 1,223 operations name its
 * `owner` and `repo` parameters hundreds of times).
 */
type Resolver = (ref: string) => unknown;

function resolverOf(doc: unknown): Resolver {
  const resolved = new Map<string, unknown>();
  return (ref) => {
    if (resolved.has(ref)) return resolved.get(ref);
    const node = resolvePointer(doc, ref);
    resolved.set(ref, node);
    return node;
  };
}

/** A `$ref` to a parameter, body, response or path item, followed while it leads somewhere: a chain longer than any document needs is a loop. */
function deref(resolve: Resolver, value: unknown): unknown {
  let node = value;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
    if (hops > MAX_REF_HOPS) return undefined;
    node = resolve(node.$ref);
  }
  return node;
}

/** A scope as RFC 6749 allows one (no space, quote or backslash), of a sane length. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/;

function securityOf(security: unknown): { scopes: string[]; scopeSets: string[][]; anonymous: boolean } {
  const requirements = listOf(security).filter(isObject);
  const scopes = new Set<string>();
  const scopeSets: string[][] = [];
  let anonymous = requirements.length === 0;
  for (const requirement of requirements) {
    const entries = Object.values(requirement);
    if (entries.length === 0) anonymous = true;
    const set = new Set<string>();
    for (const list of entries) for (const s of listOf(list)) if (typeof s === 'string' && SCOPE_TOKEN.test(s)) set.add(s);
    for (const s of set) scopes.add(s);
    // A requirement naming a scheme but no scope is met by any token: an empty alternative.
    if (entries.length) scopeSets.push([...set].slice(0, 20));
  }
  return { scopes: [...scopes].slice(0, 20), scopeSets: scopeSets.slice(0, 20), anonymous };
}

/**
 * What an operation's success answers say: whether it answers page by page (`x-paginated`, or a
 * `Link` header), and the schema of the first JSON answer. Only success answers are looked up:
 * following the references of every answer costs more than the rest of the operation.
 */
function answersOf(resolve: Resolver, op: Record<string, unknown>): { paginated: boolean; responseSchema: unknown } {
  let paginated = op['x-paginated'] === true;
  let responseSchema: unknown;
  let found = false;
  const responses = op.responses;
  if (!isObject(responses)) return { paginated, responseSchema };
  for (const status in responses) {
    if (!Object.hasOwn(responses, status) || status.charCodeAt(0) !== 50 /* 2 */) continue;
    const response = deref(resolve, responses[status]);
    if (!isObject(response)) continue;
    if (!paginated && isObject(response.headers)) paginated = Object.keys(response.headers).some((h) => h.toLowerCase() === 'link');
    if (!found && isObject(response.content)) {
      for (const type in response.content) {
        const media = (response.content as Record<string, unknown>)[type];
        if (!isJsonMediaType(type) || !Object.hasOwn(response.content, type)) continue;
        if (isObject(media)) {
          responseSchema = media.schema;
          found = true;
        }
        break;
      }
    }
  }
  return { paginated, responseSchema };
}

const LOCATIONS: ReadonlySet<string> = new Set(['path', 'query', 'header', 'cookie']);

/**
 * The parameters of one document made so far, by the object the document gives: a parameter most
 * operations share (`#/components/parameters/owner`) is made once, and every operation holds the
 * same object (the cache writes it once for all of them; see buildIndex).
 */
type MadeParameters = Map<object, ModelParameter | undefined>;

/** A parameter as the model holds it, or nothing for one of unexpected shape. Made whole, one property after another (see parametersOf). */
function parameterOf(p: unknown): ModelParameter | undefined {
  if (!isObject(p) || typeof p.name !== 'string' || !p.name || p.name.length > 200) return undefined;
  if (typeof p.in !== 'string' || !LOCATIONS.has(p.in)) return undefined;
  const location = p.in as ParameterLocation;
  const param = paramShapeOf(p, location) as ModelParameter;
  param.required = p.required === true || location === 'path';
  const description = textOf(p.description);
  if (description) param.description = description;
  param.schema = p.schema ?? (isObject(p.content) ? firstMediaSchema(p.content) : undefined);
  if (p.deprecated === true) param.deprecated = true;
  return param;
}

/**
 * Path-level parameters first; an operation's own parameter of the same name and place replaces
 * it. An operation has several parameters and a description thousands of operations, so objects
 * are made without spreads of small ones, and a shared parameter once (MadeParameters).
 */
function parametersOf(resolve: Resolver, made: MadeParameters, lists: { pathLevel: unknown; own: unknown; path: string }): ModelParameter[] {
  const byKey = new Map<string, ModelParameter>();
  let read = 0;
  for (const list of [lists.pathLevel, lists.own]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      if (read++ >= MAX_PARAMETERS) break;
      const p = deref(resolve, raw);
      if (!isObject(p)) continue;
      let param = made.get(p);
      if (param === undefined && !made.has(p)) made.set(p, (param = parameterOf(p)));
      // A path parameter the path does not hold cannot be sent.
      if (!param || (param.in === 'path' && !lists.path.includes(`{${param.name}}`))) continue;
      byKey.set(`${param.in}:${param.name}`, param);
    }
  }
  return [...byKey.values()];
}

function firstMediaSchema(content: Record<string, unknown>): unknown {
  const first = Object.values(content)[0];
  return isObject(first) ? first.schema : undefined;
}

const STYLES: ReadonlySet<string> = new Set(['simple', 'label', 'matrix', 'form', 'spaceDelimited', 'pipeDelimited', 'deepObject']);

/** How a parameter is serialized: its style and explode, with OpenAPI's defaults by location. */
function paramShapeOf(p: Record<string, unknown>, location: ParameterLocation): ParamShape {
  const fallback: ParamStyle = location === 'path' || location === 'header' ? 'simple' : 'form';
  const style = typeof p.style === 'string' && STYLES.has(p.style) ? (p.style as ParamStyle) : fallback;
  const explode = typeof p.explode === 'boolean' ? p.explode : style === 'form';
  const shape: ParamShape = { name: p.name as string, in: location, style, explode };
  if (p.allowReserved === true && location === 'query') shape.allowReserved = true;
  if (p['x-multi-segment'] === true && location === 'path') shape.multiSegment = true;
  // A parameter given by `content` is one value of that media type: JSON is the one we write.
  if (isObject(p.content)) {
    const contentType = Object.keys(p.content)[0];
    if (contentType !== undefined && contentType.length <= 200) shape.contentType = contentType;
  }
  return shape;
}

/** The `encoding` of a form or multipart media type: per property, its content type, style, explode, allowReserved. */
function encodingOf(raw: unknown): Record<string, EncodingShape> | undefined {
  if (!isObject(raw)) return undefined;
  const out: Record<string, EncodingShape> = {};
  for (const [name, e] of Object.entries(raw).slice(0, MAX_PARAMETERS)) {
    if (!isObject(e) || name === '__proto__') continue;
    const shape: EncodingShape = {
      ...(typeof e.contentType === 'string' && e.contentType.length <= 200 ? { contentType: e.contentType } : {}),
      ...(typeof e.style === 'string' && STYLES.has(e.style) ? { style: e.style as ParamStyle } : {}),
      ...(typeof e.explode === 'boolean' ? { explode: e.explode } : {}),
      ...(e.allowReserved === true ? { allowReserved: true } : {}),
    };
    if (Object.keys(shape).length) out[name] = shape;
  }
  return Object.keys(out).length ? out : undefined;
}

function bodyOf(resolve: Resolver, raw: unknown): ModelBody | undefined {
  const body = deref(resolve, raw);
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const media: ModelMedia[] = Object.entries(body.content)
    .filter(([type]) => type.trim().length > 0 && type.length <= 200)
    .slice(0, 20)
    .map(([type, m]) => {
      const item = deref(resolve, m);
      const encoding = isObject(item) ? encodingOf(item.encoding) : undefined;
      return { type: type.trim(), kind: mediaKind(type), schema: isObject(item) ? item.schema : undefined, ...(encoding ? { encoding } : {}) };
    });
  if (!media.length) return undefined;
  const fields = fieldMedia(media);
  return { contentType: media[0].type, json: fields?.kind === 'json', schema: fields?.schema, required: body.required === true, media };
}

/**
 * The servers of an operation that are its own: none when they are the document's (Twilio repeats
 * them on every path), which the base URL stands for wherever the API is reached.
 */
function ownServers(servers: string[] | undefined, documentServers: ReadonlySet<string>): string[] | undefined {
  return servers?.every((url) => documentServers.has(serverKey(url))) ? undefined : servers;
}

/**
 * A server as its host and path: the document's `//kubernetes.local` and an operation's
 * `https://kubernetes.local` name the same server, whatever scheme each writes.
 */
function serverKey(url: string): string {
  try {
    const u = new URL(url, 'https://document.invalid');
    return `${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url;
  }
}

/** An operation's or path item's `servers`: each URL with its variables' defaults filled in. */
function serversOf(raw: unknown): string[] | undefined {
  const urls: string[] = [];
  for (const s of listOf(raw).slice(0, 20)) {
    if (!isObject(s) || typeof s.url !== 'string' || s.url.length > 2000) continue;
    const vars = isObject(s.variables) ? s.variables : {};
    let unfilled = false;
    const url = s.url.replace(/\{([^{}]+)\}/g, (_, name: string) => {
      const v = Object.hasOwn(vars, name) ? vars[name] : undefined;
      const def = isObject(v) && typeof v.default === 'string' ? v.default : undefined;
      if (def === undefined) unfilled = true;
      return def ?? '';
    });
    if (!unfilled) urls.push(url);
  }
  return urls.length ? urls : undefined;
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i;

function isJsonMediaType(type: string): boolean {
  return JSON_TYPE.test(type.trim());
}

/**
 * `listCourses` → `list-courses`, `get_course_by-ID` → `get-course-by-id`: letters and digits, one
 * dash between words. Never shortened: a name cut mid-word is one nobody can type from the
 * description, and two cut names may meet.
 */
export function kebabCase(raw: string): string {
  return raw
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A name made from the method and the path: `GET /api/courses/{id}` → `get-api-courses-id`. */
export function routeCommand(method: string, path: string): string {
  return kebabCase(`${method} ${path.replace(/[{}]/g, '')}`) || method.toLowerCase();
}

/** The area of a scope: the part before `:` (`courses:read` → `courses`). */
export function scopeArea(scope: string): string {
  const colon = scope.indexOf(':');
  return colon < 0 ? scope : scope.slice(0, colon);
}

/** Words that say what a scope lets one do, not what it is about: `write:pets` names no area. */
const SCOPE_VERBS: ReadonlySet<string> = new Set([
  ...'read write admin delete manage create update edit view list get post put patch all full'.split(' '),
  ...'readonly read_only write_only modify execute use access own owner basic offline public private'.split(' '),
]);

/**
 * Whether the scopes of a document name areas (`courses:read`, `chat:write`): most are
 * `<area>:<verb>`, and none reads the other way round (`write:pets`) or is a URL
 * (`https://…/auth/drive`). Otherwise areas come from tags.
 */
export function scopesNameAreas(scopes: Iterable<string>): boolean {
  let shaped = 0;
  let all = 0;
  for (const scope of scopes) {
    all += 1;
    const colon = scope.indexOf(':');
    if (colon <= 0) continue;
    if (scope.includes('/') || SCOPE_VERBS.has(scope.slice(0, colon).toLowerCase())) return false;
    shaped += 1;
  }
  return shaped > 0 && shaped * 2 >= all;
}

/** The area of an operation: its scope's, where the document's scopes name areas; else its first tag; else `other`. */
function areaOf(scopes: readonly string[], tags: readonly string[], byScope: boolean): string {
  const fromScope = byScope ? scopes.map((s) => (s.includes(':') ? kebabCase(scopeArea(s)) : '')).find(Boolean) : undefined;
  if (fromScope) return fromScope.replace(/-/g, '_');
  const fromTag = tags.map((t) => kebabCase(t)).find(Boolean);
  return fromTag ?? 'other';
}

/** At most this many operations are named in one note; the rest are counted. */
const NOTE_EXAMPLES = 5;

function listed(ways: readonly string[]): string {
  const more = ways.length - NOTE_EXAMPLES;
  return `${ways.slice(0, NOTE_EXAMPLES).join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

/**
 * One unique command name per operation. A name two operations would share is given to neither:
 * both take their whole method-and-path names (`get-api-courses-id`), and a note says so. Method
 * and path name one operation, so those meet only when two paths differ in braces or punctuation
 * alone (`/a/{b}` and `/a/b`); then a number is added, and the note says that too.
 */
function assignCommands(found: readonly ModelOperation[], wanted: readonly string[]): { names: string[]; notes: string[] } {
  const count = new Map<string, number>();
  for (const name of wanted) count.set(name, (count.get(name) ?? 0) + 1);
  const taken = new Set(wanted.filter((name) => count.get(name) === 1));
  const notes: string[] = [];
  const clashes = new Map<string, string[]>();
  const numbered: string[] = [];
  const names = found.map((op, i) => {
    const asked = wanted[i];
    if (count.get(asked) === 1) return asked;
    const route = routeCommand(op.method, op.path);
    let name = route;
    for (let n = 2; taken.has(name); n++) name = `${route}-${n}`;
    if (name !== route) numbered.push(`${op.method} ${op.path} is ${name}`);
    taken.add(name);
    const ways = clashes.get(asked) ?? [];
    if (!clashes.has(asked)) clashes.set(asked, ways);
    ways.push(`${op.method} ${op.path} is ${name}`);
    return name;
  });
  for (const [asked, ways] of clashes) notes.push(`${ways.length} operations are named "${asked}": ${listed(ways)}.`);
  if (numbered.length) notes.push(`Names made from the method and path were taken, so a number was added: ${listed(numbered)}.`);
  return { names, notes };
}

/** Every operation of the document, in document order, each with its command name. */
export function readApiModel(doc: unknown): ApiModel {
  if (!isObject(doc) || !isObject(doc.paths)) return { operations: [], notes: [] };
  const resolve = resolverOf(doc);
  const made: MadeParameters = new Map();
  const found: ModelOperation[] = [];
  // The name each operation asks for, beside it: assignCommands gives the names.
  const wanted: string[] = [];
  const documentServers = new Set((serversOf(doc.servers) ?? []).map(serverKey));
  outer: for (const [path, rawItem] of Object.entries(doc.paths)) {
    const item = deref(resolve, rawItem);
    if (!isObject(item) || !path.startsWith('/') || path.length > 2000) continue;
    for (const method of HTTP_METHODS) {
      if (found.length >= MAX_OPERATIONS) break outer;
      const op = item[method];
      if (!isObject(op)) continue;
      const security = securityOf(op.security !== undefined ? op.security : doc.security);
      const tags = listOf(op.tags).filter((t): t is string => typeof t === 'string' && t.length > 0 && t.length <= 100);
      const operationId = typeof op.operationId === 'string' && op.operationId.length <= 200 ? op.operationId : undefined;
      const cliName = typeof op['x-cli-name'] === 'string' ? kebabCase(op['x-cli-name']) : '';
      const summary = textOf(op.summary);
      const description = textOf(op.description);
      const upper = method.toUpperCase();
      const answers = answersOf(resolve, op);
      const body = method === 'get' || method === 'head' ? undefined : bodyOf(resolve, op.requestBody);
      const servers = ownServers(serversOf(op.servers) ?? serversOf(item.servers), documentServers);
      // Made whole, property by property, in the order the cache writes them (see parametersOf).
      const model = { command: '', method: upper, path } as ModelOperation;
      if (operationId) model.operationId = operationId;
      if (summary) model.summary = summary;
      if (description && description !== summary) model.description = description;
      model.tags = tags;
      model.scopes = security.scopes;
      model.scopeSets = security.scopeSets;
      model.anonymous = security.anonymous;
      model.area = '';
      model.paginated = answers.paginated;
      model.deprecated = op.deprecated === true;
      model.parameters = parametersOf(resolve, made, { pathLevel: item.parameters, own: op.parameters, path });
      if (body) model.body = body;
      if (answers.responseSchema !== undefined) model.responseSchema = answers.responseSchema;
      if (servers) model.servers = servers;
      found.push(model);
      wanted.push(cliName || (operationId ? kebabCase(operationId) : '') || routeCommand(upper, path));
    }
  }
  const byScope = scopesNameAreas(new Set(found.flatMap((op) => op.scopes)));
  for (const op of found) op.area = areaOf(op.scopes, op.tags, byScope);
  const { names, notes } = assignCommands(found, wanted);
  for (let i = 0; i < found.length; i++) found[i].command = names[i];
  return { operations: found, notes };
}

/** Whether the scopes granted let the operation through; the scopes missing from its nearest alternative when not. */
export function missingScopes(op: Pick<ModelOperation, 'scopeSets'>, granted: ReadonlySet<string>): string[] {
  if (op.scopeSets.length === 0) return [];
  let best: string[] | undefined;
  for (const set of op.scopeSets) {
    const missing = set.filter((s) => !granted.has(s));
    if (missing.length === 0) return [];
    if (!best || missing.length < best.length) best = missing;
  }
  return best ?? [];
}
