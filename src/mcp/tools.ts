import { type ModelParameter, readApiModel, scopeArea } from '../api/operations.js';
import { assignNames, wholeToolName } from './names.js';
import { createHash } from 'node:crypto';
import { type JsonSchema, PROPERTY_NAME, cleanText, newBudget, serverWords, toolSchema } from './schema.js';

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
  in: 'path' | 'query';
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
  /** The JSON request body's schema, when the operation takes one. */
  body?: { schema: JsonSchema; required: boolean };
}

interface Tool {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  annotations: { title?: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint?: boolean; openWorldHint: boolean };
}

/** The operation's path and query parameters as tool input properties (headers and cookies are ours to set). */
function parametersOf(doc: unknown, params: readonly ModelParameter[]): ApiParameter[] {
  const budget = newBudget();
  const out: ApiParameter[] = [];
  for (const p of params) {
    if (p.in !== 'path' && p.in !== 'query') continue;
    if (!p.name || p.name.length > 200) continue; // not a name a person gave
    const param: ApiParameter = { name: p.name, key: p.name, in: p.in, required: p.required, schema: toolSchema(doc, p.schema, budget) };
    // Path and query values travel as text: a parameter without a type is a string.
    if (param.schema.type === undefined && param.schema.anyOf === undefined && param.schema.enum === undefined) param.schema.type = 'string';
    const description = serverWords("Server's description", p.description);
    if (description) param.description = description;
    out.push(param);
  }
  // Hosts accept property names of [A-Za-z0-9_.-], at most 64; `body` is the request body's.
  const used = new Set(out.filter((p) => PROPERTY_NAME.test(p.name) && p.name !== 'body').map((p) => p.name));
  for (const p of out) {
    if (PROPERTY_NAME.test(p.name) && p.name !== 'body') continue;
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

/** Every operation of the document (read by the one operation model, src/api/operations.ts), each with its tool name. */
export function readOperations(doc: unknown): ApiOperation[] {
  const found: Array<Omit<ApiOperation, 'name'>> = readApiModel(doc).operations.map((op) => {
    const summary = cleanText(op.summary, 120);
    const description = cleanText(op.description, 600);
    const reading = op.method === 'GET' || op.method === 'HEAD';
    return {
      method: op.method,
      path: op.path,
      ...(op.operationId ? { operationId: op.operationId } : {}),
      ...(summary ? { summary } : {}),
      ...(description && description !== summary ? { description } : {}),
      scopes: op.scopes,
      anonymous: op.anonymous,
      paginated: op.method === 'GET' && op.paginated,
      parameters: parametersOf(doc, op.parameters),
      ...(reading ? {} : { body: op.body?.json ? { schema: toolSchema(doc, op.body.schema), required: op.body.required } : undefined }),
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

/** One line that says what a scope list means for the caller. */
function describeScopes(op: Pick<ApiOperation, 'scopes' | 'anonymous'>): string {
  if (!op.scopes.length) return 'Needs no scope.';
  return `Needs the scope ${op.scopes.join(' or ')}${op.anonymous ? ' (anonymous callers get a reduced answer)' : ''}.`;
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
    properties.body = { ...op.body.schema, description: op.body.schema.description ? `The JSON request body. ${String(op.body.schema.description)}` : 'The JSON request body.' };
    if (op.body.required && !required.includes('body')) required.push('body');
  }
  const route = `${op.method} ${cleanText(op.path, 300) ?? '/'}`;
  // Our words first; the server's summary and description after, quoted and labelled as its own.
  const serverText = [op.summary ? `${op.summary.replace(/\.$/, '')}.` : undefined, op.description].filter(Boolean).join(' ');
  const description = [
    `${route}.`,
    describeScopes(op),
    op.paginated ? 'Paginated: the pages are followed and returned together, up to 100 kB; a page asked for by its parameter (page, cursor) is returned alone.' : undefined,
    serverText ? serverWords("Server's description", serverText, 720) : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const readOnly = READ_METHODS.has(op.method);
  // A shortened name is the operation's still: its whole name stands in the title, after the summary.
  const summary = op.summary ? cleanText(op.summary, 80) : undefined;
  const whole = op.wholeName ? cleanText(op.wholeName, 200) : undefined;
  const title = whole ? (summary ? `${summary} (${whole})` : whole) : summary;
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
function callTool(allowWrite: boolean): Tool {
  const methods = allowWrite ? ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] : ['GET', 'HEAD'];
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
