/**
 * The API description of a base URL, as every front-end gets it: from the cache while fresh (its
 * `Cache-Control: max-age`, else 24 hours), then revalidated with `If-None-Match` /
 * `If-Modified-Since` (a `304` keeps the copy), fetched anew when changed, and the stale copy kept
 * in use, with a note, when the server cannot be reached. A description named elsewhere
 * (description-source.ts) is cached under its base URL and source together; a file is read again
 * when its size or time changes. What a command reads at start-up is the compact index
 * (src/api/api-index.ts), not the document.
 */
// The callback API, not fs.promises: the promise API loads a dozen modules, and a cached description needs only a stat.
import { type Stats, stat } from 'node:fs';
import {
  type ApiIndex,
  type DefinitionTable,
  type DetailLine,
  type IndexEntry,
  INDEX_FORMAT,
  buildIndex,
  definitionDoc,
  definitionTable,
  definitionsSpan,
  detailFrom,
  indexFromText,
  materialize,
  operationLine,
  reachedDefinitions,
  withParameters,
} from '../api/api-index.js';
import { parseDescription, readDescriptionFile } from '../api/description-text.js';
import { type Deps, nowSeconds } from '../deps.js';
import { CliError, errorReason } from '../errors.js';
import { MAX_BYTES } from '../http/client.js';
import { printable } from '../util/printable.js';
import { type DescriptionSource, defaultDescriptionUrl, descriptionCacheKey } from './description-source.js';
import type { Target } from './target.js';

/** How long a description is used without asking the server, when it says nothing of it. */
const DEFAULT_MAX_AGE_SECONDS = 24 * 60 * 60;
/** The longest a server's max-age is taken at its word. */
const MAX_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
const FETCH_TIMEOUT_MS = 30_000;

export interface LoadedDescription {
  index: ApiIndex;
  /** One line for stderr when the copy in use is stale because the server could not be reached. */
  note?: string;
  /** How the copy was obtained, for tests and --verbose. */
  how: 'cache' | 'revalidated' | 'fetched' | 'stale';
  /** One operation's detail (fields, schemas), read from the detail file alone. */
  detail(entry: IndexEntry): Promise<DetailLine | undefined>;
  /** Every operation's fields (no schemas to check against), in index order, read at once: for listings, at a cost that grows with the document. */
  details(): Promise<Array<DetailLine | undefined>>;
  /** The whole document, for what needs more than the index (`school mcp`). */
  document(): Promise<unknown>;
}

export interface LoadOptions {
  /** Fetch now, whatever the cache holds (`school api --refresh`). */
  refresh?: boolean;
  /** Never make a request: the cached index or nothing (completion). */
  offline?: boolean;
  signal?: AbortSignal;
  /**
   * The profile and the description source resolved for the command (resolveTarget): a source
   * named on the command line is remembered by the profile once it has been read.
   */
  target?: Pick<Target, 'profile' | 'description'>;
}

/**
 * `max-age` of a Cache-Control header; else 0 for `no-cache` (use only once revalidated); else
 * undefined (the 24 hours apply). `no-store` alone is no reason to ask the server on every run:
 * many servers send it on every answer, a description included.
 */
export function maxAgeOf(cacheControl: string | undefined): number | undefined {
  if (!cacheControl) return undefined;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  const found = directives.map((d) => /^max-age\s*=\s*"?(\d{1,12})"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  if (found !== undefined) return Math.min(Number(found), MAX_MAX_AGE_SECONDS);
  return directives.includes('no-cache') ? 0 : undefined;
}

function describeAge(seconds: number): string {
  if (seconds < 90) return `${Math.max(0, Math.round(seconds))} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

/** The API description of the base URL: cached, revalidated or fetched, as its freshness calls for. */
export async function loadApiDescription(deps: Pick<Deps, 'http' | 'state' | 'clock' | 'signal'>, baseUrl: string, options: LoadOptions = {}): Promise<LoadedDescription> {
  const source = options.target?.description;
  const loaded = await loadFrom(deps, baseUrl, source, options);
  if (source?.remember && options.target && !options.offline) {
    const isDefault = source.kind === 'url' && source.location === defaultDescriptionUrl(baseUrl);
    await deps.state.rememberDescription(options.target.profile, baseUrl, isDefault ? undefined : source.location).catch(() => undefined);
  }
  return loaded;
}

/** A file's size and modification time: what tells a cached copy of it from a changed file. */
function fileStamp(stat: { size: number; mtimeMs: number }): string {
  return `file:${stat.size}:${Math.round(stat.mtimeMs)}`;
}

async function loadFrom(deps: Pick<Deps, 'http' | 'state' | 'clock' | 'signal'>, baseUrl: string, source: DescriptionSource | undefined, options: LoadOptions): Promise<LoadedDescription> {
  const now = nowSeconds(deps);
  // Every cache entry below is the key's: the base URL, with the source when it is not the default.
  const key = descriptionCacheKey(baseUrl, source);
  const cached = indexFromText(await deps.state.readApiIndex(key).catch(() => undefined), key);
  let memoryDetail: { bytes: Buffer; index: ApiIndex } | undefined;
  let memoryDoc: unknown;

  const loaded = (index: ApiIndex, how: LoadedDescription['how'], note?: string): LoadedDescription => ({
    index,
    how,
    ...(note ? { note } : {}),
    async detail(entry) {
      const [offset, length] = entry.at;
      if (memoryDetail?.index === index) {
        const bytes = memoryDetail.bytes;
        const table = definitionTable(rangeOf(bytes, ...index.definitions));
        return table && detailFrom((o, l) => rangeOf(bytes, o, l), entry.at, table);
      }
      const read = (o: number, l: number) => deps.state.readApiDetail(key, index.detailFile, o, l);
      const [stored, table] = await Promise.all([read(offset, length).then(operationLine), read(...index.definitions).then(definitionTable)]);
      const line = stored && withParameters(stored, await Promise.all(stored.parameters.map((p) => read(...p))));
      if (!line || !table) return undefined;
      const defs = reachedDefinitions(line, table);
      // The operation's definitions in one read: the span from the first to the last of them.
      const span = definitionsSpan(defs);
      const text = span ? await read(...span) : '';
      if (text === undefined) return undefined;
      const spanBytes = Buffer.from(text);
      return materialize(line, defs, (o, l) => rangeOf(spanBytes, o - (span?.[0] ?? 0), l));
    },
    async details() {
      const bytes = memoryDetail?.index === index ? memoryDetail.bytes : Buffer.from((await deps.state.readApiDetail(key, index.detailFile)) ?? '');
      const table: DefinitionTable = definitionTable(rangeOf(bytes, ...index.definitions)) ?? [];
      // One document of definitions for the whole listing: each is read and placed once, however many operations use it.
      const shared = definitionDoc();
      return index.operations.map(({ at }) => detailFrom((o, l) => rangeOf(bytes, o, l), at, table, shared, { schemas: false }));
    },
    async document() {
      return memoryDoc ?? (await documentOf(deps, key, index));
    },
  });

  /** A new index for a document, saved with it; kept in memory when the cache cannot be written. */
  const indexDocument = async (doc: unknown, meta: Pick<ApiIndex, 'fetchedAt' | 'maxAgeSeconds' | 'etag' | 'lastModified' | 'documentFile'>, json?: string | Uint8Array): Promise<ApiIndex> => {
    const built = buildIndex(doc);
    const draft: ApiIndex = {
      format: INDEX_FORMAT,
      baseUrl: key,
      ...meta,
      detailFile: '',
      definitions: built.definitions,
      notes: built.notes,
      operations: built.operations.map((op, i) => ({ ...op, at: built.at[i] })),
    };
    // The detail file's bytes, made once: written as they are, and kept for the operation this command reads.
    const bytes = built.detail;
    const saved = await deps.state.saveApiCache(key, { index: { ...draft }, detail: bytes, ...(json !== undefined ? { json } : {}) });
    const index = { ...draft, detailFile: saved?.detailFile ?? '' };
    memoryDoc = doc;
    memoryDetail = { bytes, index };
    return index;
  };

  if (cached && !options.refresh && (options.offline || now - cached.fetchedAt < cached.maxAgeSeconds)) return loaded(cached, 'cache');
  // A file is read whether or not requests may be made.
  if (options.offline && source?.kind !== 'file') {
    // An index of another format (an earlier version of school) is made again from the cached document.
    const doc = await deps.state.cachedApiDescription(key).catch(() => undefined);
    if (doc === undefined) throw new CliError(`No cached API description of ${printable(baseUrl)}.`, { code: 'openapi_unavailable' });
    return loaded(await indexDocument(doc, { fetchedAt: 0, maxAgeSeconds: 0 }), 'cache');
  }

  if (source?.kind === 'file') {
    const file = source.location;
    const stats = await statOf(file).catch((err: NodeJS.ErrnoException) => {
      throw new CliError(`Could not read the API description ${printable(file)}: ${err.code === 'ENOENT' ? 'no such file' : errorReason(err)}.`, { code: 'openapi_unavailable' });
    });
    if (!stats.isFile()) throw new CliError(`The API description ${printable(file)} is not a file.`, { code: 'openapi_unavailable' });
    // A file is cheap to ask: its size and time say at once whether the cached copy is still it.
    if (cached && !options.refresh && cached.etag === fileStamp(stats)) return loaded(cached, 'cache');
    if (stats.size > MAX_BYTES.openapi) throw new CliError(`The API description ${printable(file)} is larger than ${MAX_BYTES.openapi / 1024 / 1024} MiB.`, { code: 'openapi_invalid' });
    const bytes = await bytesOf(file).catch((err: unknown) => {
      throw new CliError(`Could not read the API description ${printable(file)}: ${errorReason(err)}.`, { code: 'openapi_unavailable' });
    });
    const parsed = parseDescription(bytes, printable(file), { reread: () => readDescriptionFile(file) });
    // The file is the document's copy: the cache keeps none of its own (see documentOf).
    return loaded(await indexDocument(parsed.doc, { fetchedAt: now, maxAgeSeconds: 0, etag: fileStamp(stats), documentFile: file }), 'fetched');
  }

  // Fetched with no token, whatever the origin: a description is public, and a token goes to the API's origin only.
  const url = source?.location ?? defaultDescriptionUrl(baseUrl);
  const headers: Record<string, string> = { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' };
  if (cached?.etag) headers['if-none-match'] = cached.etag;
  if (cached?.lastModified) headers['if-modified-since'] = cached.lastModified;
  const signal = options.signal ?? deps.signal;
  let res;
  try {
    res = await deps.http.request({ url, headers, signal, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_BYTES.openapi });
  } catch (err) {
    if (signal?.aborted || !cached) {
      if (signal?.aborted) throw err;
      throw new CliError(`Could not fetch the API description ${printable(url)}: ${errorReason(err)}`, { code: 'openapi_unavailable' });
    }
    return loaded(cached, 'stale', staleNote(url, errorReason(err), now - cached.fetchedAt));
  }
  const validators = {
    ...(res.headers.etag ? { etag: res.headers.etag.slice(0, 500) } : {}),
    ...(res.headers['last-modified'] ? { lastModified: res.headers['last-modified'].slice(0, 100) } : {}),
  };
  const maxAgeSeconds = maxAgeOf(res.headers['cache-control']) ?? DEFAULT_MAX_AGE_SECONDS;
  if (res.status === 304 && cached) {
    const index: ApiIndex = { ...cached, fetchedAt: now, maxAgeSeconds, ...validators };
    await deps.state.saveApiCache(key, { index: { ...index } });
    return loaded(index, 'revalidated');
  }
  if (res.status !== 200) {
    if (cached) return loaded(cached, 'stale', staleNote(url, `HTTP ${res.status}`, now - cached.fetchedAt));
    throw new CliError(`Could not fetch the API description: ${printable(url)} answered HTTP ${res.status}.`, { code: 'openapi_unavailable' });
  }
  const parsed = parseDescription(res.body, printable(url));
  return loaded(await indexDocument(parsed.doc, { fetchedAt: now, maxAgeSeconds, ...validators }, parsed.json), 'fetched');
}

/**
 * The whole document of a cached description: the file it was read from, while that file is
 * still the one indexed (its size and time), else the copy the cache keeps of a fetched one.
 */
async function documentOf(deps: Pick<Deps, 'state'>, key: string, index: ApiIndex | undefined): Promise<unknown> {
  const file = index?.documentFile;
  if (typeof file !== 'string') return deps.state.cachedApiDescription(key);
  try {
    if (fileStamp(await statOf(file)) !== index?.etag) return undefined;
    const bytes = await bytesOf(file);
    return parseDescription(bytes, printable(file), { reread: () => readDescriptionFile(file) }).doc;
  } catch {
    return undefined;
  }
}

/** The document of a description the cache holds, without asking any server (`school mcp` at start, path completion): see documentOf. */
export async function cachedDescriptionDocument(deps: Pick<Deps, 'state'>, key: string): Promise<unknown> {
  const index = indexFromText(await deps.state.readApiIndex(key).catch(() => undefined), key);
  return documentOf(deps, key, index);
}

function statOf(file: string): Promise<Stats> {
  return new Promise((resolve, reject) => stat(file, (err, stats) => (err ? reject(err) : resolve(stats))));
}

/** A description file's bytes, read with room for its escapes (readDescriptionFile). */
function bytesOf(file: string): Promise<Buffer> {
  return new Promise((resolve) => resolve(readDescriptionFile(file)));
}

/** `length` bytes at `offset`, as text; undefined when they are not all there. */
function rangeOf(bytes: Buffer, offset: number, length: number): string | undefined {
  return offset >= 0 && length >= 0 && offset + length <= bytes.length ? bytes.subarray(offset, offset + length).toString('utf8') : undefined;
}

function staleNote(url: string, reason: string, ageSeconds: number): string {
  return `Could not reach ${printable(url)} (${printable(reason.replace(/\.$/, ''))}); using the copy cached ${describeAge(ageSeconds)} ago.`;
}
