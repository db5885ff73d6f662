import { type ModelOperation, type ModelParameter, readApiModel, resolvePointer, scopeArea } from '../api/operations.js';
import { type RequestShape, fieldMedia, requestShapeOf, sendableHeader } from '../api/request-shape.js';
import { assignNames, wholeToolName } from './names.js';
import { createHash } from 'node:crypto';
import { type JsonSchema, PROPERTY_NAME, type SchemaBudget, cleanText, newBudget, serverList, serverWords, spend, toolSchema } from './schema.js';

/**
 * The tools `school mcp` offers, made from the API description (`/openapi.json`). Every part of
 * the document is untrusted: anything of unexpected shape is skipped, never thrown on.
 */

export const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** More operations than this become one `school_operations` tool, unless `--toolsets` picks some. */
export const MAX_OPERATION_TOOLS = 40;

interface ApiParameter {
  name: string;
  /** The parameter's property in the tool's input: its name where every host accepts it, else one made from it. */
  key: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface ApiOperation {
  /** The tool's name: valid for every host, unique, the same on every run for the same document. */
  name: string;
  /** The operation's whole name, when the tool's name is not it (cut to 48 characters, or tagged apart from another). */
  wholeName?: string;
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  scopes: string[];
  /** True when the operation also answers requests without a token. */
  anonymous: boolean;
  paginated: boolean;
  parameters: ApiParameter[];
  /**
   * The request body's schema, when the operation takes one: JSON, or the object of a form's or
   * multipart body's fields (a file field as base64, named in `files`), or text sent as it is.
   */
  body?: { schema: JsonSchema; required: boolean; files?: string[] };
  /** What the request builder needs (api/request-shape.ts): the same shape `school api` builds from. */
  request: RequestShape;
}

interface Tool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: { title?: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint?: boolean; openWorldHint: boolean };
}

/** The operation's parameters as tool input properties (but the headers the client sets: those are ours). */
function parametersOf(doc: unknown, params: readonly ModelParameter[], budget: SchemaBudget): ApiParameter[] {
  const out: ApiParameter[] = [];
  for (const p of params) {
    if (p.in === 'header' && !sendableHeader(p.name)) continue;
    if (!p.name || p.name.length > 200) continue; // not a name a person gave
    const param: ApiParameter = { name: p.name, key: p.name, in: p.in, required: p.required, schema: toolSchema(doc, p.schema, budget) };
    // Path and query values travel as text: a parameter without a type is a string.
    if (param.schema.type === undefined && param.schema.anyOf === undefined && param.schema.enum === undefined) param.schema.type = 'string';
    const description = serverWords("Server's description", p.description);
    if (description && spend(budget, description.length)) param.description = description;
    out.push(param);
  }
  // Hosts accept property names of [A-Za-z0-9_.-], at most 64; `body` is the request body's; a
  // name two parameters share (a query `version` and a header `version`) is the first one's.
  const plain = new Set<string>();
  const own = new Set(out.filter((p) => PROPERTY_NAME.test(p.name) && p.name !== 'body' && !plain.has(p.name) && plain.add(p.name)));
  const used = new Set(plain);
  for (const p of out) {
    if (own.has(p)) continue;
    // A short name keeps a readable form (filter[kind] → query_filter_kind_); a long one, which
    // could carry a message of its own, becomes a tag made from it, the same on every run.
    const readable = p.name.replace(/[^A-Za-z0-9_.-]+/g, '_');
    const base = readable.length <= 40 ? `${p.in}_${readable}` : `${p.in}_param_${createHash('sha256').update(p.name).digest('hex').slice(0, 8)}`;
    let key = base;
    for (let i = 2; used.has(key); i++) key = `${base}_${i}`;
    used.add(key);
    p.key = key;
    const shown = serverWords(`The ${p.in} parameter's name, as the server spells it`, p.name, 40);
    p.description = [p.description, shown ? `${shown}.` : undefined].filter(Boolean).join(' ');
  }
  return out;
}

const deref = (doc: unknown, node: unknown): unknown => {
  let out = node;
  for (let hops = 0; isObject(out) && typeof out.$ref === 'string' && hops < 16; hops++) out = resolvePointer(doc, out.$ref);
  return out;
};

/**
 * The `body` a tool takes: the fields' media type (JSON, form, multipart: the first the operation
 * offers) as an object of its schema, a multipart file field (`format: binary`) as its bytes in
 * base64; an operation that takes only another media type gets text, sent as it is.
 */
function bodyOf(doc: unknown, op: ModelOperation, budget: SchemaBudget): ApiOperation['body'] {
  if (!op.body) return undefined;
  const media = fieldMedia(op.body.media);
  if (!media) return { schema: { type: 'string', description: `The request body as ${cleanText(op.body.contentType, 100)}, sent as it is.` }, required: op.body.required };
  const schema = toolSchema(doc, media.schema, budget);
  if (media.kind !== 'multipart') return { schema, required: op.body.required };
  const files: string[] = [];
  const declared = deref(doc, media.schema);
  const props = isObject(declared) && isObject(declared.properties) ? declared.properties : {};
  const shown = isObject(schema.properties) ? schema.properties : {};
  for (const [name, sub] of Object.entries(props)) {
    const field = deref(doc, sub);
    if (!isObject(field) || field.format !== 'binary' || !Object.hasOwn(shown, name)) continue;
    files.push(name);
    shown[name] = { type: 'string', contentEncoding: 'base64', description: 'A file: its bytes, base64-encoded.' };
  }
  return { schema, required: op.body.required, ...(files.length ? { files } : {}) };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every operation of the document (read by the one operation model, src/api/operations.ts), each with its tool name. */
export function readOperations(doc: unknown): ApiOperation[] {
  const found: Array<Omit<ApiOperation, 'name'>> = readApiModel(doc).operations.map((op) => {
    const summary = cleanText(op.summary, 120);
    const description = cleanText(op.description, 600);
    const reading = op.method === 'GET' || op.method === 'HEAD';
    // One budget for the whole input of the tool: its parameters and its body.
    const budget = newBudget();
    return {
      method: op.method,
      path: op.path,
      ...(op.operationId ? { operationId: op.operationId } : {}),
      ...(summary ? { summary } : {}),
      ...(description && description !== summary ? { description } : {}),
      scopes: op.scopes,
      anonymous: op.anonymous,
      paginated: op.method === 'GET' && op.paginated,
      parameters: parametersOf(doc, op.parameters, budget),
      ...(reading ? {} : { body: bodyOf(doc, op, budget) }),
      request: requestShapeOf(op),
    };
  });
  const names = assignNames(found);
  return found.map((op, i) => {
    const whole = wholeToolName(op);
    return { ...op, name: names[i], ...(whole !== names[i] ? { wholeName: whole } : {}) };
  });
}

function inToolsets(op: Pick<ApiOperation, 'scopes'>, areas: readonly string[]): boolean {
  return op.scopes.some((s) => areas.includes(scopeArea(s).toLowerCase()));
}

/** What a scope list means for the caller; the scope names are the server's, quoted. */
function describeScopes(op: Pick<ApiOperation, 'scopes' | 'anonymous'>): string {
  const names = serverList(`Needs one of these scopes${op.anonymous ? ' (anonymous callers get a reduced answer)' : ''}, as the server names them`, op.scopes, 128);
  return names ? `${names}.` : 'Needs no scope.';
}

/** What the request does, in our words: the method decides, never the server's text. */
function describeMethod(method: string): string {
  if (READ_METHODS.has(method)) return `Reads from the school API (${method}).`;
  if (method === 'DELETE') return 'Deletes data in the school API (DELETE).';
  return `Changes data in the school API (${method}).`;
}

/** The tool for one operation. */
function operationTool(op: ApiOperation): Tool {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of op.parameters) {
    properties[p.key] = { ...p.schema, ...(p.description && p.schema.description === undefined ? { description: p.description } : {}) };
    if (p.required) required.push(p.key);
  }
  if (op.body) {
    // A parameter called `body` would be shadowed: the request body is what the name means here.
    const what = op.request.media.length ? `The request body (${cleanText(op.request.media.find((m) => m.kind !== 'raw')?.type ?? op.request.media[0].type, 100)}).` : 'The request body.';
    properties.body = { ...op.body.schema, description: op.body.schema.description ? `${what} ${String(op.body.schema.description)}` : what };
    if (op.body.required && !required.includes('body')) required.push('body');
  }
  // Our words first; everything the server wrote (path, scopes, summary, description) after,
  // quoted and labelled as its own, so no text of it reads as ours.
  const serverText = [op.summary ? `${op.summary.replace(/\.$/, '')}.` : undefined, op.description].filter(Boolean).join(' ');
  const description = [
    describeMethod(op.method),
    `${serverWords("Server's path", op.path, 300) ?? 'Server\'s path: "/"'}.`,
    describeScopes(op),
    op.paginated ? 'Paginated: the pages are followed and returned together, up to 100 kB; a page asked for by its parameter (page, cursor) is returned alone.' : undefined,
    serverText ? serverWords("Server's description", serverText, 720) : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const readOnly = READ_METHODS.has(op.method);
  // A title is shown as a heading: ours, the whole name where the tool's name is shortened, and the
  // server's summary quoted in it.
  const summary = cleanText(op.summary, 80);
  const whole = op.wholeName ? cleanText(op.wholeName, 200) : undefined;
  const quoted = summary ? `${JSON.stringify(summary)} (the server's summary)` : undefined;
  const title = whole || quoted ? `School API${whole ? ` ${whole}` : ''}${quoted ? `: ${quoted}` : ''}` : undefined;
  return {
    name: op.name,
    ...(title ? { title } : {}),
    description,
    inputSchema: { type: 'object', properties, ...(required.length ? { required: [...new Set(required)] } : {}) },
    annotations: {
      ...(title ? { title } : {}),
      readOnlyHint: readOnly,
      destructiveHint: op.method === 'DELETE',
      ...(readOnly || op.method === 'PUT' || op.method === 'DELETE' ? { idempotentHint: true } : {}),
      openWorldHint: false,
    },
  };
}

/** `school_call`: any path of the API, for operations the document lacks. */
/** The methods `school_call` takes, as its input schema says: no TRACE (it echoes the token back), no CONNECT. */
export const CALL_METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

function callTool(allowWrite: boolean): Tool {
  const methods = allowWrite ? [...CALL_METHODS] : ['GET', 'HEAD'];
  return {
    name: 'school_call',
    title: 'Call the school API',
    description:
      `An authenticated request to any path of the school API (relative to its base URL), for operations no other tool covers. ` +
      (allowWrite ? 'Any method.' : 'Reading only (GET and HEAD): writes need the server started with --allow-write.') +
      ' Returns the HTTP status and the body.',
    inputSchema: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: methods, default: 'GET', description: 'The HTTP method.' },
        path: { type: 'string', description: 'The API path, e.g. /api/courses; relative to the base URL, never another origin.' },
        query: { type: 'object', additionalProperties: { type: 'string' }, description: 'Query parameters, name to value.' },
        body: { type: 'object', description: 'A JSON request body (not for GET or HEAD).' },
      },
      required: ['path'],
    },
    annotations: { title: 'Call the school API', readOnlyHint: !allowWrite, destructiveHint: allowWrite, openWorldHint: false },
  };
}

const WHOAMI_TOOL: Tool = {
  name: 'school_whoami',
  title: 'Who is logged in',
  description: "Who is logged in to the school API: the user's claims (name, email, subject) and the scopes the session holds.",
  inputSchema: { type: 'object', properties: {} },
  annotations: { title: 'Who is logged in', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

const OPERATIONS_TOOL: Tool = {
  name: 'school_operations',
  title: 'Find API operations',
  description:
    'Searches the operations of the school API: each match with its method, path, summary, the scopes it needs and its parameters. ' +
    'Call one with school_call. Without a query, lists them all. Needs no login.',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string', description: 'Words matched against the method, path, summary and scopes, e.g. "courses list".' } },
  },
  annotations: { title: 'Find API operations', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export interface CatalogueOptions {
  allowWrite: boolean;
  toolsets?: readonly string[];
}

/** What the server offers for one document: the tools, the operations behind them, and whether it is the searchable catalogue. */
export interface Catalogue {
  tools: Tool[];
  /** Operation tools by name; the operations offered (read-only mode: reads only). */
  byName: Map<string, ApiOperation>;
  /** Every operation of the description (of the toolsets chosen), for school_operations. */
  operations: ApiOperation[];
  /** True when the operations are offered through school_operations rather than one tool each. */
  searchable: boolean;
  allowWrite: boolean;
}

export function buildCatalogue(doc: unknown, options: CatalogueOptions): Catalogue {
  let operations = readOperations(doc);
  if (options.toolsets) operations = operations.filter((op) => inToolsets(op, options.toolsets!));
  // The size of the description decides, not how many of its operations the mode allows.
  const searchable = !options.toolsets && operations.length > MAX_OPERATION_TOOLS;
  const byName = new Map<string, ApiOperation>();
  const tools: Tool[] = [];
  if (!searchable) {
    for (const op of operations) {
      if (!options.allowWrite && !READ_METHODS.has(op.method)) continue;
      byName.set(op.name, op);
      tools.push(operationTool(op));
    }
  } else tools.push(OPERATIONS_TOOL);
  tools.push(callTool(options.allowWrite), WHOAMI_TOOL);
  return { tools, byName, operations, searchable, allowWrite: options.allowWrite };
}

/** `school_operations`: the operations matching every word of the query (all of them without one). */
export function searchOperations(operations: readonly ApiOperation[], query: string | undefined, allowWrite = true): Array<Record<string, unknown>> {
  const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return operations
    .filter((op) => {
      const text = `${op.method} ${op.path} ${op.summary ?? ''} ${op.operationId ?? ''} ${op.scopes.join(' ')}`.toLowerCase();
      return words.every((w) => text.includes(w));
    })
    .map((op) => ({
      method: op.method,
      path: cleanText(op.path, 300) ?? '/',
      ...(op.summary ? { summary: op.summary } : {}),
      scopes: op.scopes,
      ...(op.paginated ? { paginated: true } : {}),
      parameters: op.parameters.map((p) => ({
        name: cleanText(p.name, 100) ?? '',
        in: p.in,
        required: p.required,
        ...(typeof p.schema.type === 'string' ? { type: p.schema.type } : {}),
        ...(p.description ? { description: p.description } : {}),
      })),
      ...(op.body ? { body: op.body.schema } : {}),
      ...(allowWrite || READ_METHODS.has(op.method) ? {} : { allowed: false, why: 'A write: this server is read-only; the person can start it with --allow-write.' }),
    }));
}
