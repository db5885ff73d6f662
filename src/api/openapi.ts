import { CliError } from '../errors.js';
import type { HttpClient } from '../http/client.js';

export interface Operation {
  method: string;
  path: string;
  scopes: string[];
  /** True when the operation also answers requests without a token. */
  anonymous: boolean;
  summary?: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

export type OpenApiDoc = {
  paths?: Record<string, Record<string, { summary?: string; operationId?: string; security?: Array<Record<string, string[]>> }>>;
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
      ops.push({ method: method.toUpperCase(), path, scopes: [...scopes], anonymous, summary: op.summary ?? op.operationId });
    }
  }
  return ops;
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
