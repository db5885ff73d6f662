import { CliError } from '../errors.js';
import { type HttpClient, MAX_BYTES } from '../http/client.js';
import { HTTP_METHODS as METHODS, type OpenApiDoc } from '../types/api-description.js';

export interface Operation {
  method: string;
  path: string;
  scopes: string[];
  /** True when the operation also answers requests without a token. */
  anonymous: boolean;
  summary?: string;
  /** True when the operation answers page by page (`x-paginated`, or a `Link` header in its success response). */
  paginated: boolean;
  parameters: OperationParameter[];
}

export interface OperationParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  type?: string;
}

export type { OpenApiDoc };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Security requirements as they should be: an array of objects of string arrays; anything else counts as none. */
function requirementsOf(value: unknown): Array<Record<string, unknown>> | undefined {
  return Array.isArray(value) ? value.filter(isObject) : undefined;
}

/**
 * Operations with the scopes each needs, read from the OpenAPI `security` requirements. The document
 * comes from a server: every part of unexpected shape is skipped, never thrown on.
 */
export function listOperations(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  if (!isObject(doc)) return ops;
  const paths: Record<string, unknown> = isObject(doc.paths) ? doc.paths : {};
  const docSecurity = requirementsOf(doc.security);
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const security = requirementsOf(op.security) ?? docSecurity ?? [];
      const scopes = new Set<string>();
      let anonymous = security.length === 0;
      for (const requirement of security) {
        const entries = Object.values(requirement);
        if (entries.length === 0) anonymous = true;
        for (const list of entries) if (Array.isArray(list)) for (const s of list) if (typeof s === 'string') scopes.add(s);
      }
      const summary = typeof op.summary === 'string' ? op.summary : typeof op.operationId === 'string' ? op.operationId : undefined;
      ops.push({
        method: method.toUpperCase(),
        path,
        scopes: [...scopes],
        anonymous,
        summary,
        paginated: isPaginated(op),
        parameters: parametersOf([...listOf(item.parameters), ...listOf(op.parameters)]),
      });
    }
  }
  return ops;
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function isPaginated(op: Record<string, unknown>): boolean {
  if (op['x-paginated'] === true) return true;
  const responses = isObject(op.responses) ? op.responses : {};
  return Object.entries(responses).some(
    ([status, response]) =>
      /^2/.test(status) && isObject(response) && isObject(response.headers) && Object.keys(response.headers).some((h) => h.toLowerCase() === 'link'),
  );
}

/** Path-level parameters first; an operation's own parameter of the same name and place replaces it. */
function parametersOf(docs: unknown[]): OperationParameter[] {
  const byKey = new Map<string, OperationParameter>();
  for (const p of docs) {
    if (!isObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue; // a $ref or a malformed entry
    const type = isObject(p.schema) && typeof p.schema.type === 'string' ? p.schema.type : undefined;
    byKey.set(`${p.in}:${p.name}`, {
      name: p.name,
      in: p.in,
      required: p.required === true || p.in === 'path',
      ...(typeof p.description === 'string' && p.description ? { description: p.description } : {}),
      ...(type ? { type } : {}),
    });
  }
  return [...byKey.values()];
}

/** Fetches /openapi.json (anonymously: it is public). */
export async function fetchOpenApi(http: HttpClient, baseUrl: string, signal?: AbortSignal): Promise<OpenApiDoc> {
  const res = await http.request({ url: `${baseUrl}/openapi.json`, headers: { accept: 'application/json' }, signal, maxBytes: MAX_BYTES.openapi });
  if (res.status !== 200) throw new CliError(`${baseUrl}/openapi.json answered HTTP ${res.status}.`, { code: 'openapi_unavailable' });
  let doc: OpenApiDoc;
  try {
    doc = JSON.parse(res.body.toString('utf8')) as OpenApiDoc;
  } catch {
    throw new CliError(`${baseUrl}/openapi.json is not valid JSON.`, { code: 'openapi_invalid' });
  }
  return doc;
}
