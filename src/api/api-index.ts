/**
 * The compact index of an API description: what a command reads at start-up instead of the whole
 * document. One small JSON with every operation's name, route, summary, scopes and area, and where
 * its detail (fields, schemas) lies in a JSON-lines file beside it; a command reads the one line
 * of its own operation. Made once per fetched description.
 */
import { type OperationDetail, operationDetail } from './operation-detail.js';
import { type ModelOperation, readApiModel } from './operations.js';

/** Raised whenever what the index or a detail line holds, or how names are made, changes: an index of another format is made again from the cached document. */
export const INDEX_FORMAT = 2;

export interface IndexEntry {
  command: string;
  method: string;
  path: string;
  operationId?: string;
  summary?: string;
  scopes: string[];
  scopeSets: string[][];
  anonymous: boolean;
  area: string;
  paginated: boolean;
  deprecated?: boolean;
  /** The request body's media type, and whether one is required. */
  body?: { contentType: string; json: boolean; required: boolean };
  /** Byte offset and length of the operation's line in the detail file. */
  at: [number, number];
}

/** One line of the detail file. */
export interface DetailLine extends OperationDetail {
  description?: string;
  tags: string[];
}

export interface ApiIndex {
  format: number;
  baseUrl: string;
  /** When the document was fetched or last revalidated, in seconds since the epoch. */
  fetchedAt: number;
  /** How long after fetchedAt the copy is used without asking the server. */
  maxAgeSeconds: number;
  etag?: string;
  lastModified?: string;
  /** The detail file's name, beside the index. */
  detailFile: string;
  notes: string[];
  operations: IndexEntry[];
}

export interface BuiltIndex {
  operations: Array<Omit<IndexEntry, 'at'>>;
  notes: string[];
  /** The detail file's text, and each operation's [offset, length] in it. */
  detail: string;
  at: Array<[number, number]>;
}

function entryOf(op: ModelOperation): Omit<IndexEntry, 'at'> {
  return {
    command: op.command,
    method: op.method,
    path: op.path,
    ...(op.operationId ? { operationId: op.operationId } : {}),
    ...(op.summary ? { summary: op.summary.slice(0, 300) } : {}),
    scopes: op.scopes,
    scopeSets: op.scopeSets,
    anonymous: op.anonymous,
    area: op.area,
    paginated: op.paginated,
    ...(op.deprecated ? { deprecated: true } : {}),
    ...(op.body ? { body: { contentType: op.body.contentType, json: op.body.json, required: op.body.required } } : {}),
  };
}

/** The index entries and the detail file of a document. */
export function buildIndex(doc: unknown): BuiltIndex {
  const model = readApiModel(doc);
  const lines: string[] = [];
  const at: Array<[number, number]> = [];
  let offset = 0;
  for (const op of model.operations) {
    const line: DetailLine = { ...operationDetail(doc, op), ...(op.description ? { description: op.description.slice(0, 4000) } : {}), tags: op.tags };
    const text = JSON.stringify(line);
    const length = Buffer.byteLength(text);
    at.push([offset, length]);
    lines.push(text);
    offset += length + 1;
  }
  return { operations: model.operations.map(entryOf), notes: model.notes, detail: lines.length ? `${lines.join('\n')}\n` : '', at };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An index read back from the cache, when it is one of this format for this base URL. */
export function asIndex(value: unknown, baseUrl: string): ApiIndex | undefined {
  if (!isObject(value) || value.format !== INDEX_FORMAT || value.baseUrl !== baseUrl) return undefined;
  if (typeof value.fetchedAt !== 'number' || typeof value.maxAgeSeconds !== 'number' || typeof value.detailFile !== 'string') return undefined;
  if (!Array.isArray(value.operations) || !Array.isArray(value.notes)) return undefined;
  return value as unknown as ApiIndex;
}

export function asDetail(text: string | undefined): DetailLine | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) && Array.isArray(value.fields) ? (value as unknown as DetailLine) : undefined;
  } catch {
    return undefined;
  }
}
