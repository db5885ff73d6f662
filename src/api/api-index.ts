/**
 * The compact index of an API description: what a command reads at start-up instead of the whole
 * document. One small JSON with every operation's name, route, summary, scopes and area, and where
 * its detail lies in a JSON-lines file beside it; a command reads the one line of its own
 * operation. Made once per fetched description.
 *
 * What it costs is bounded by the document, not by its operations: an operation's line holds its
 * body and answer as the document has them, where its parameters lie, and the definitions they
 * refer to (`$ref`); each parameter and each definition is written once in the same file however
 * many operations use it. The fields and
 * checkable schemas of an operation are made from its line and its definitions when a command
 * reads it (materialize), so a first run does that work for one operation, not for all of them.
 */
import { type OperationDetail, operationDetail } from './operation-detail.js';
import { type ModelOperation, readApiModel, resolvePointer } from './operations.js';
import { type RequestShape, requestShapeOf } from './request-shape.js';

/** Raised whenever what the index or a detail line holds, or how names are made, changes: an index of another format is made again from the cached document. */
export const INDEX_FORMAT = 5;

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

/** An operation's detail as a command reads it: its fields and schemas, made from its line in the detail file. */
export interface DetailLine extends OperationDetail {
  description?: string;
  tags: string[];
  /** What the request builder needs: parameter styles, the body's media types, servers. */
  request: RequestShape;
  /** Why the operation's schemas are not checked (they nest too deep to follow), when they are not. */
  unchecked?: string;
}

/** One operation's line in the detail file: the parts of the operation its detail is made from, as the document has them. */
export interface StoredLine {
  method: string;
  path: string;
  /** The operation's own servers (see ModelOperation). */
  servers?: string[];
  description?: string;
  tags: string[];
  /** Where each of its parameters lies in the detail file: one line per parameter, shared by every operation that has it. */
  parameters: Array<[number, number]>;
  body?: ModelOperation['body'];
  responseSchema?: unknown;
  /** The definitions its parts (its parameters' too) refer to directly (`$ref`), by their place in the definitions table. */
  refs: number[];
  /** Set when its schemas could not be kept (nested too deep): why its values go unchecked. */
  unchecked?: string;
}

/** An operation's line with its parameters read back: what its detail is made from. */
export interface OperationLine extends Omit<StoredLine, 'parameters'> {
  parameters: ModelOperation['parameters'];
}

/**
 * The definitions table, the detail file's last line: each definition's pointer, the [offset,
 * length] of its line, and the definitions it refers to. An operation's definitions are followed
 * through it, so no line lists more than its own references: the file grows with the document,
 * never with operations times definitions.
 */
export type DefinitionTable = Array<[string, number, number, number[]]>;

export interface ApiIndex {
  /**
   * The entry of a command name, found without reading every entry (an index read back from its
   * text has it; see indexFromText); else look in `operations`.
   */
  entryNamed?(command: string): IndexEntry | undefined;
  format: number;
  baseUrl: string;
  /** When the document was fetched or last revalidated, in seconds since the epoch. */
  fetchedAt: number;
  /** How long after fetchedAt the copy is used without asking the server. */
  maxAgeSeconds: number;
  etag?: string;
  lastModified?: string;
  /** The file a description named by path was read from: its own copy, which the cache does not duplicate. */
  documentFile?: string;
  /** The detail file's name, beside the index. */
  detailFile: string;
  /** Byte offset and length of the definitions table in the detail file. */
  definitions: [number, number];
  notes: string[];
  operations: IndexEntry[];
}

export interface BuiltIndex {
  operations: Array<Omit<IndexEntry, 'at'>>;
  notes: string[];
  /** The detail file's bytes (UTF-8), and each operation's [offset, length] in it. */
  detail: Buffer;
  at: Array<[number, number]>;
  /** Where the definitions table lies in the detail file. */
  definitions: [number, number];
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

/** The most definitions one operation reaches; beyond them, a reference resolves to nothing (any value). */
const MAX_REACHED = 5000;
/** A `$ref` key with a string value, as JSON.stringify writes it. Inside a JSON string every quote is escaped, so this is never part of one. */
const REF_KEY = '"$ref":"';

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escapedQuote(text: string, at: number): boolean {
  let slashes = 0;
  while (text.charCodeAt(at - 1 - slashes) === 92 /* \ */) slashes++;
  return slashes % 2 === 1;
}

/**
 * The local references a JSON text (of JSON.stringify) holds, each once, in the order they come.
 * Found by searching the text, which is faster than walking the value or matching an expression.
 */
function refsIn(text: string): string[] {
  const found = new Set<string>();
  for (let at = text.indexOf(REF_KEY); at >= 0; ) {
    const start = at + REF_KEY.length;
    let end = text.indexOf('"', start);
    while (end >= 0 && escapedQuote(text, end)) end = text.indexOf('"', end + 1);
    if (end < 0) break;
    let ref: unknown = text.slice(start, end);
    // Only a reference with an escape in it needs the JSON reader.
    if ((ref as string).includes('\\')) {
      try {
        ref = JSON.parse(text.slice(start - 1, end + 1));
      } catch {
        ref = undefined; // not a reference after all
      }
    }
    if (typeof ref === 'string' && ref.startsWith('#/') && ref.length <= 1000) found.add(ref);
    at = text.indexOf(REF_KEY, end + 1);
  }
  return [...found];
}

const TOO_DEEP = 'its schemas nest too deep to check';

/** JSON text of a value; undefined for one nested deeper than the serializer can go. */
function deepSafeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
}

/** A parameter's line: its text, the references in it, and whether its schema had to be left out. */
interface ParameterText {
  text: string;
  refs: string[];
  tooDeep: boolean;
  at?: [number, number];
}

/** The parts of an operation its line holds, before the detail file is laid out. */
interface DraftLine {
  /** The line's text without its parameters and references, which are known once the file is laid out. */
  head: string;
  parameters: ParameterText[];
  refs: number[];
}

/**
 * The index entries and the detail file of a document: every parameter and every definition its
 * operations reach (each once), the operations' lines, and the table. Lines are JSON text made with
 * JSON.stringify of the parts as the model holds them; the work is the document's size, once.
 */
export function buildIndex(doc: unknown): BuiltIndex {
  const model = readApiModel(doc);
  // Each definition once for the whole document: its text and its own references, by pointer.
  const defs = new Map<string, { id: number; text: string; refs: string[] }>();
  const idOf = (pointer: string): number => {
    let def = defs.get(pointer);
    if (!def) {
      const text = deepSafeJson(resolvePointer(doc, pointer) ?? null) ?? 'null';
      def = { id: defs.size, text, refs: refsIn(text) };
      defs.set(pointer, def);
    }
    return def.id;
  };
  // Each parameter once: the model gives operations sharing a parameter the same object.
  const parameters = new Map<ModelOperation['parameters'][number], ParameterText>();
  const parameterText = (p: ModelOperation['parameters'][number]): ParameterText => {
    let made = parameters.get(p);
    if (!made) {
      const whole = deepSafeJson(p);
      // A schema nested deeper than JSON.stringify goes: the parameter is kept, its values unchecked.
      const text = whole ?? JSON.stringify({ ...p, schema: undefined });
      made = { text, refs: refsIn(text), tooDeep: whole === undefined };
      parameters.set(p, made);
    }
    return made;
  };
  const drafts: DraftLine[] = [];
  for (const op of model.operations) {
    const own = op.parameters.map(parameterText);
    const line: Omit<StoredLine, 'parameters' | 'refs'> = {
      method: op.method,
      path: op.path,
      ...(op.servers ? { servers: op.servers } : {}),
      ...(op.description ? { description: op.description.slice(0, 4000) } : {}),
      tags: op.tags,
      ...(op.body ? { body: op.body } : {}),
      ...(op.responseSchema !== undefined ? { responseSchema: op.responseSchema } : {}),
    };
    // Schemas nested deeper than JSON.stringify goes: the operation is kept, its values unchecked.
    const whole = own.some((p) => p.tooDeep) ? undefined : deepSafeJson(line);
    const text =
      whole ??
      JSON.stringify({
        ...line,
        ...(line.body ? { body: { ...line.body, schema: undefined, media: line.body.media.map((m) => ({ ...m, schema: undefined })) } } : {}),
        responseSchema: undefined,
        unchecked: TOO_DEEP,
      });
    const refs = new Set(refsIn(text).map(idOf));
    for (const p of own) for (const ref of p.refs) refs.add(idOf(ref));
    drafts.push({ head: text.slice(0, -1), parameters: own, refs: [...refs] });
  }
  // Every definition reached from another, each visited once (the map grows as it is walked).
  for (const def of defs.values()) for (const ref of def.refs) idOf(ref);

  const lines: string[] = [];
  const table: DefinitionTable = [];
  let offset = 0;
  const add = (text: string): [number, number] => {
    const length = Buffer.byteLength(text);
    lines.push(text);
    const at: [number, number] = [offset, length];
    offset += length + 1;
    return at;
  };
  for (const [pointer, def] of defs) table.push([pointer, ...add(def.text), def.refs.map((r) => defs.get(r)!.id)]);
  for (const p of parameters.values()) p.at = add(p.text);
  const at = drafts.map((d) => add(`${d.head},"parameters":${JSON.stringify(d.parameters.map((p) => p.at))},"refs":${JSON.stringify(d.refs)}}`));
  const definitions = add(JSON.stringify(table));
  // Written straight into the file's bytes: no text of the whole file is made only to be encoded.
  const detail = Buffer.allocUnsafe(offset);
  let written = 0;
  for (const text of lines) {
    written += detail.write(text, written);
    detail[written++] = 0x0a;
  }
  return { operations: model.operations.map(entryOf), notes: model.notes, detail, at, definitions };
}

/** The definitions table read back, when it is one. */
export function definitionTable(text: string | undefined): DefinitionTable | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as DefinitionTable) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether an offset and a length read back from the cache name a place in a file. */
const isPlace = (offset: unknown, length: unknown): boolean => Number.isSafeInteger(offset) && Number.isSafeInteger(length) && (offset as number) >= 0 && (length as number) >= 0;

/** Every definition an operation reaches, however deep: followed breadth first through the table, each once. */
export function reachedDefinitions(line: OperationLine, table: DefinitionTable): Array<[string, number, number]> {
  const reached = new Set<number>(line.refs.filter((id) => Number.isSafeInteger(id)));
  for (const id of reached) {
    if (reached.size >= MAX_REACHED) break;
    const children = table[id]?.[3];
    if (Array.isArray(children)) for (const child of children) reached.add(child);
  }
  const out: Array<[string, number, number]> = [];
  for (const id of reached) {
    const def = table[id];
    if (Array.isArray(def) && typeof def[0] === 'string' && isPlace(def[1], def[2])) out.push([def[0], def[1], def[2]]);
  }
  return out;
}

/**
 * The definitions put back where their pointers say, in a document holding only them: for one
 * operation, or shared by every operation of a listing (each definition read and placed once).
 */
export interface DefinitionDoc {
  doc: Record<string, unknown>;
  placed: Set<string>;
  /** Objects made only to hold a definition deeper down: a definition placed later at their place replaces them. */
  holders: WeakSet<object>;
}

export function definitionDoc(): DefinitionDoc {
  return { doc: {}, placed: new Set(), holders: new WeakSet() };
}

/** Puts a definition where its pointer says. */
function place(into: DefinitionDoc, pointer: string, value: unknown): void {
  const there = resolvePointer(into.doc, pointer);
  // Inside a definition placed before it: already there, as the document has it.
  if (there !== undefined && !(typeof there === 'object' && there !== null && into.holders.has(there))) return;
  const keys = pointer
    .slice(2)
    .split('/')
    .map((raw) => {
      try {
        return decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      } catch {
        return undefined;
      }
    });
  if (keys.some((k) => k === undefined || k === '__proto__')) return;
  let node: Record<string, unknown> = into.doc;
  for (const key of keys.slice(0, -1) as string[]) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (next === undefined) {
      const holder: Record<string, unknown> = {};
      into.holders.add(holder);
      node = node[key] = holder;
    } else if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
    else return;
  }
  // A holder made for a definition inside this one is replaced: this one holds it too.
  node[keys[keys.length - 1] as string] = value;
}

/** An operation's line read back from the detail file, when it is one. */
export function operationLine(text: string | undefined): StoredLine | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (!isObject(value) || !Array.isArray(value.parameters) || !Array.isArray(value.refs) || !Array.isArray(value.tags)) return undefined;
    if (typeof value.method !== 'string' || typeof value.path !== 'string') return undefined;
    if (!value.parameters.every((at) => isRange(at))) return undefined;
    return value as unknown as StoredLine;
  } catch {
    return undefined;
  }
}

const isRange = (at: unknown): at is [number, number] => Array.isArray(at) && at.length === 2 && isPlace(at[0], at[1]);

/** An operation's line with its parameters, given the text of each (as StoredLine.parameters place them); nothing when one cannot be read. */
export function withParameters(line: StoredLine, texts: ReadonlyArray<string | undefined>): OperationLine | undefined {
  const parameters: OperationLine['parameters'] = [];
  for (const text of texts) {
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (!isObject(value) || typeof value.name !== 'string' || typeof value.in !== 'string') return undefined;
      parameters.push(value as unknown as OperationLine['parameters'][number]);
    } catch {
      return undefined;
    }
  }
  return { ...line, parameters };
}

/** The byte range holding every definition of a list: one read instead of one per definition. */
export function definitionsSpan(defs: ReadonlyArray<[string, number, number]>): [number, number] | undefined {
  if (!defs.length) return undefined;
  const start = Math.min(...defs.map((d) => d[1]));
  const end = Math.max(...defs.map((d) => d[1] + d[2]));
  return [start, end - start];
}

/** Parameters only, as text: what an operation whose schemas cannot be followed still takes. */
function uncheckedDetail(line: OperationLine): OperationDetail {
  const fields = line.parameters
    .filter((p) => p.in !== 'cookie')
    .map((p) => ({
      location: p.in as 'path' | 'query' | 'header',
      name: p.name,
      type: 'string' as const,
      array: false,
      required: p.required,
      ...(p.description ? { description: p.description } : {}),
    }));
  return { fields, paramSchemas: {}, bodyIsObject: false };
}

/**
 * An operation's detail from its line, the definitions it reaches (reachedDefinitions) and a
 * reader of the detail file's byte ranges: its definitions put back where its references point,
 * then its fields and schemas made from them. A listing passes one DefinitionDoc for every
 * operation, so each definition is read and placed once.
 */
export function materialize(
  line: OperationLine | undefined,
  defs: ReadonlyArray<[string, number, number]>,
  readRange: (offset: number, length: number) => string | undefined,
  into: DefinitionDoc = definitionDoc(),
  options: { schemas?: boolean } = {},
): DetailLine | undefined {
  if (line === undefined) return undefined;
  for (const [pointer, offset, length] of defs) {
    if (into.placed.has(pointer)) continue;
    const raw = readRange(offset, length);
    if (raw === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
    into.placed.add(pointer);
    // A reference to nothing stays one: its schema accepts any value, as bundleSchema makes it.
    if (value !== null) place(into, pointer, value);
  }
  const doc = into.doc;
  const request = requestShapeOf({ method: line.method, path: line.path, parameters: line.parameters, ...(line.body ? { body: line.body } : {}), ...(line.servers ? { servers: line.servers } : {}) });
  const words = { ...(line.description ? { description: line.description } : {}), tags: line.tags, request, ...(typeof line.unchecked === 'string' ? { unchecked: TOO_DEEP } : {}) };
  try {
    return { ...operationDetail(doc, line, options), ...words };
  } catch (err) {
    // References chained deeper than the stack: the operation is still usable, its values unchecked.
    if (!(err instanceof RangeError)) throw err;
    return { ...uncheckedDetail(line), ...words, unchecked: TOO_DEEP };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An index read back from the cache, when it is one of this format for this base URL. */
function asIndex(value: unknown, baseUrl: string): ApiIndex | undefined {
  if (!isObject(value) || value.format !== INDEX_FORMAT || value.baseUrl !== baseUrl) return undefined;
  if (typeof value.fetchedAt !== 'number' || typeof value.maxAgeSeconds !== 'number' || typeof value.detailFile !== 'string') return undefined;
  if (!Array.isArray(value.operations) || !Array.isArray(value.notes) || !Array.isArray(value.definitions)) return undefined;
  return value as unknown as ApiIndex;
}

/** An operation's detail from a detail file held whole (a listing, or a description just indexed). */
export function detailFrom(
  readRange: (offset: number, length: number) => string | undefined,
  at: [number, number],
  table: DefinitionTable,
  into?: DefinitionDoc,
  options: { schemas?: boolean } = {},
): DetailLine | undefined {
  const stored = operationLine(readRange(...at));
  const line =
    stored &&
    withParameters(
      stored,
      stored.parameters.map((p) => readRange(...p)),
    );
  return line && materialize(line, reachedDefinitions(line, table), readRange, into, options);
}

/** A key as JSON.stringify writes it: with quotes, which are escaped inside every JSON string, so never part of one. */
const OPERATIONS_KEY = '"operations":[';
const AT_KEY = '"at":[';
/** The end of an entry: its `at`, the last of its keys (see buildIndex and loadFrom). */
const AT_VALUE = /^\d{1,15},\d{1,15}\]\}/;

/** Where the text of the entry holding `at` (the place of its `"at":[`) ends; undefined when that is not an entry's end. */
function entryEnd(text: string, at: number): number | undefined {
  const m = AT_VALUE.exec(text.slice(at + AT_KEY.length, at + AT_KEY.length + 40));
  return m ? at + AT_KEY.length + m[0].length : undefined;
}

/**
 * An index read back from its JSON text, when it is one of this format for this base URL. A
 * command reads one operation of thousands: the entries are read when first asked for, and one
 * entry by its name (entryNamed) is found in the text, so a cached run reads the index's few
 * fields and one entry, not every entry. What is found is checked; text of another shape is read
 * whole, as JSON.
 */
export function indexFromText(text: string | undefined, baseUrl: string): ApiIndex | undefined {
  if (text === undefined) return undefined;
  const wholly = (): ApiIndex | undefined => {
    try {
      return asIndex(JSON.parse(text), baseUrl);
    } catch {
      return undefined;
    }
  };
  const key = text.indexOf(OPERATIONS_KEY);
  if (key < 0) return wholly();
  const from = key + OPERATIONS_KEY.length;
  let to = from;
  if (text[from] !== ']') {
    const last = text.lastIndexOf(AT_KEY);
    const end = last > from ? entryEnd(text, last) : undefined;
    if (end === undefined || text[end] !== ']') return wholly();
    to = end;
  }
  let index: ApiIndex | undefined;
  try {
    index = asIndex(JSON.parse(`${text.slice(0, from)}${text.slice(to)}`), baseUrl);
  } catch {
    return wholly();
  }
  if (!index) return undefined;
  const read: ApiIndex = index;
  let operations: IndexEntry[] | undefined;
  const entries = text.slice(from, to);
  Object.defineProperty(read, 'operations', {
    enumerable: true,
    configurable: true,
    get: () => (operations ??= readEntries(entries)),
  });
  Object.defineProperty(read, 'entryNamed', {
    enumerable: false,
    value: (command: string): IndexEntry | undefined => {
      if (operations) return operations.find((op) => op.command === command);
      const start = entries.indexOf(`{"command":${JSON.stringify(command)},`);
      const at = start < 0 ? -1 : entries.indexOf(AT_KEY, start);
      const end = at < 0 ? undefined : entryEnd(entries, at);
      if (end === undefined) return read.operations.find((op) => op.command === command);
      try {
        const entry: unknown = JSON.parse(entries.slice(start, end));
        if (isObject(entry) && entry.command === command && Array.isArray(entry.at)) return entry as unknown as IndexEntry;
      } catch {
        // Not an entry after all: looked for among all of them.
      }
      return read.operations.find((op) => op.command === command);
    },
  });
  return read;
}

/** The entries of an index's text, or none when they cannot be read. */
function readEntries(text: string): IndexEntry[] {
  try {
    const value: unknown = JSON.parse(`[${text}]`);
    return Array.isArray(value) ? (value as IndexEntry[]) : [];
  } catch {
    return [];
  }
}
