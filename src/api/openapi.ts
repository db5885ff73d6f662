import { cacheKey } from '../util/cache-key.js';
import { join } from 'node:path';
import { CliError } from '../errors.js';
import { type HttpClient, MAX_BYTES } from '../http/client.js';
import { readFileIfExists, writeFileAtomic } from '../util/atomic.js';

export interface Operation {
  method: string;
  path: string;
  scopes: string[];
  /** True when the operation also answers requests without a token. */
  anonymous: boolean;
  summary?: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

export async function openapiCacheFile(cacheDir: string, baseUrl: string): Promise<string> {
  return join(cacheDir, 'openapi', `${await cacheKey(baseUrl)}.json`);
}

type OpenApiDoc = {
  paths?: Record<string, Record<string, { summary?: string; operationId?: string; security?: Array<Record<string, string[]>> }>>;
  security?: Array<Record<string, string[]>>;
};

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
      ops.push({ method: method.toUpperCase(), path, scopes: [...scopes], anonymous, summary });
    }
  }
  return ops;
}

/** Fetches /openapi.json (anonymously: it is public) and keeps a copy for completions. */
export async function fetchOpenApi(http: HttpClient, cacheDir: string, baseUrl: string, signal?: AbortSignal): Promise<OpenApiDoc> {
  const res = await http.request({ url: `${baseUrl}/openapi.json`, headers: { accept: 'application/json' }, signal, maxBytes: MAX_BYTES.openapi });
  if (res.status !== 200) throw new CliError(`${baseUrl}/openapi.json answered HTTP ${res.status}.`, { code: 'openapi_unavailable' });
  let doc: OpenApiDoc;
  try {
    doc = JSON.parse(res.body.toString('utf8')) as OpenApiDoc;
  } catch {
    throw new CliError(`${baseUrl}/openapi.json is not valid JSON.`, { code: 'openapi_invalid' });
  }
  await writeFileAtomic(await openapiCacheFile(cacheDir, baseUrl), JSON.stringify(doc), 0o600).catch(() => undefined);
  return doc;
}

export async function cachedOpenApi(cacheDir: string, baseUrl: string): Promise<OpenApiDoc | undefined> {
  try {
    const text = await readFileIfExists(await openapiCacheFile(cacheDir, baseUrl));
    return text ? (JSON.parse(text) as OpenApiDoc) : undefined;
  } catch {
    return undefined;
  }
}
