import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';

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

type ParameterDoc = { name?: string; in?: string; required?: boolean; description?: string; schema?: { type?: string } };
type OperationDoc = {
  summary?: string;
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: ParameterDoc[];
  'x-paginated'?: boolean;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

type PathItemDoc = { parameters?: ParameterDoc[] } & { [M in (typeof METHODS)[number]]?: OperationDoc };
export type OpenApiDoc = {
  paths?: Record<string, PathItemDoc>;
  security?: Array<Record<string, string[]>>;
};

/** Operations with the scopes each needs, read from the OpenAPI `security` requirements. */
export function listOperations(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const security = op.security ?? doc.security ?? [];
      const scopes = new Set<string>();
      let anonymous = security.length === 0;
      for (const requirement of security) {
        const entries = Object.values(requirement ?? {});
        if (entries.length === 0) anonymous = true;
        for (const list of entries) for (const s of list ?? []) scopes.add(s);
      }
      ops.push({
        method: method.toUpperCase(),
        path,
        scopes: [...scopes],
        anonymous,
        summary: op.summary ?? op.operationId,
        paginated: isPaginated(op),
        parameters: parametersOf([...(item.parameters ?? []), ...(op.parameters ?? [])]),
      });
    }
  }
  return ops;
}

function isPaginated(op: OperationDoc): boolean {
  if (op['x-paginated'] === true) return true;
  return Object.entries(op.responses ?? {}).some(
    ([status, response]) => /^2/.test(status) && Object.keys(response?.headers ?? {}).some((h) => h.toLowerCase() === 'link'),
  );
}

/** Path-level parameters first; an operation's own parameter of the same name and place replaces it. */
function parametersOf(docs: ParameterDoc[]): OperationParameter[] {
  const byKey = new Map<string, OperationParameter>();
  for (const p of docs) {
    if (typeof p?.name !== 'string' || typeof p.in !== 'string') continue; // a $ref or a malformed entry
    byKey.set(`${p.in}:${p.name}`, {
      name: p.name,
      in: p.in,
      required: p.required === true || p.in === 'path',
      ...(p.description ? { description: p.description } : {}),
      ...(p.schema?.type ? { type: p.schema.type } : {}),
    });
  }
  return [...byKey.values()];
}

/** Fetches /openapi.json (anonymously: it is public). */
export async function fetchOpenApi(http: HttpClient, baseUrl: string, signal?: AbortSignal): Promise<OpenApiDoc> {
  const res = await http.request({ url: `${baseUrl}/openapi.json`, headers: { accept: 'application/json' }, signal });
  if (res.status !== 200) throw new CliError(`${baseUrl}/openapi.json answered HTTP ${res.status}.`, { code: 'openapi_unavailable' });
  let doc: OpenApiDoc;
  try {
    doc = JSON.parse(res.body.toString('utf8')) as OpenApiDoc;
  } catch {
    throw new CliError(`${baseUrl}/openapi.json is not valid JSON.`, { code: 'openapi_invalid' });
  }
  return doc;
}
