/**
 * An API description from its bytes: JSON, or YAML (the `yaml` package, loaded only for a YAML
 * document), checked to be an OpenAPI 3 document. What this costs is bounded by the document: its
 * size is capped where it is read, YAML aliases are limited (no "billion laughs"), and a YAML
 * document nesting deeper than any description needs is refused with one line.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CliError } from '../errors.js';
import { requireCommonJs } from '../util/require.js';

/** Deeper than any real description nests (GitHub's deepest is under 40): refused, never walked. */
const MAX_DOCUMENT_DEPTH = 256;
/** YAML aliases resolved at most: a few are normal, thousands are an expansion attack. */
const MAX_YAML_ALIASES = 1000;

export interface ParsedDescription {
  doc: Record<string, unknown>;
  /** The document as JSON: the bytes as sent (without a byte order mark) for a JSON document, text made once for a YAML one. */
  json: string | Buffer;
  format: 'json' | 'yaml';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bytes checked at once for being ASCII: most stretches of a description are, and the check is much faster than a scan. */
const ASCII_STRETCH = 64 * 1024;
/** Where the halving stops and bytes are looked at one by one. */
const ASCII_SCAN = 64;

/**
 * The first byte at or after `from` and before `end` that is not ASCII (`end` when there is none):
 * halves known to be ASCII are skipped whole, so only a few dozen bytes are looked at one by one.
 * A loop over every byte of a stretch runs before the code is optimized, and costs more than all
 * the checks of the halves.
 */
function firstNonAscii(bytes: Buffer, from: number, end: number): number {
  let lo = from;
  let hi = end;
  while (hi - lo > ASCII_SCAN) {
    const mid = lo + ((hi - lo) >> 1);
    if (isAscii(bytes.subarray(lo, mid))) lo = mid;
    else hi = mid;
  }
  while (lo < hi && bytes[lo] < 0x80) lo++;
  return lo < hi ? lo : end;
}

/** The length of a UTF-8 byte order mark the bytes start with: 3, or 0 without one. */
const bomLength = (bytes: Buffer): number => (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0);

/** A run of non-ASCII bytes (UTF-8) as the `\u` escapes of its characters. */
function escaped(run: Buffer): string {
  let text = '';
  for (const ch of run.toString('utf8')) {
    for (let i = 0; i < ch.length; i++) text += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  }
  return text;
}

/** Room left after a description file's bytes, for its escapes to be written in place: twice the non-ASCII bytes of most descriptions (GitHub's have 140). */
const ESCAPE_ROOM = 64 * 1024;

/** Bytes read with room after them (readDescriptionFile): theirs to rewrite in place. */
const withRoom = new WeakSet<Buffer>();

/**
 * A description file's bytes, read into memory with room after them, so jsonText writes its
 * escapes in place rather than into a copy of thirteen megabytes (a copy is mostly the cost of
 * the fresh memory it takes). The bytes are the caller's, who must not rely on them after.
 */
export function readDescriptionFile(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const whole = Buffer.allocUnsafeSlow(size + ESCAPE_ROOM);
    let read = 0;
    for (let n = 1; n > 0 && read < whole.length; read += n) n = readSync(fd, whole, read, whole.length - read, null);
    // A file that grew while read fills its room: read whole, with no room left.
    if (read > size) return Buffer.concat([whole.subarray(0, read), readRest(fd)]);
    const bytes = whole.subarray(0, read);
    withRoom.add(bytes);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

function readRest(fd: number): Buffer {
  const parts: Buffer[] = [];
  for (;;) {
    const part = Buffer.allocUnsafe(64 * 1024);
    const n = readSync(fd, part, 0, part.length, null);
    if (n <= 0) return Buffer.concat(parts);
    parts.push(part.subarray(0, n));
  }
}

/**
 * The bytes as a string, quickly: JSON is ASCII outside its strings, and decoding ASCII as Latin-1
 * makes a one-byte string, several times faster to decode and to parse than UTF-8's two-byte one.
 * The few runs of other bytes (inside strings) become `\u` escapes, which JSON reads as the same text.
 * They are found stretch by stretch, each checked whole for being ASCII first: a scan of every byte
 * (or a regular expression over the text) costs more than the parse saves. The escapes are written
 * into the bytes themselves where they were read with room (readDescriptionFile), else into one
 * copy; the text is then decoded once.
 */
export function jsonText(bytes: Buffer): string {
  const start = bomLength(bytes);
  const runs: Array<{ from: number; to: number; text: string }> = [];
  let grows = 0;
  let at = start;
  while (at < bytes.length) {
    const end = Math.min(at + ASCII_STRETCH, bytes.length);
    if (isAscii(bytes.subarray(at, end))) {
      at = end;
      continue;
    }
    at = firstNonAscii(bytes, at, end);
    if (at === end) continue;
    let past = at;
    while (past < bytes.length && bytes[past] >= 0x80) past++;
    const text = escaped(bytes.subarray(at, past));
    runs.push({ from: at, to: past, text });
    grows += text.length - (past - at);
    at = past;
  }
  // A text with nothing to replace is decoded once, as it is.
  if (!runs.length) return bytes.toString('latin1', start);
  if (withRoom.has(bytes) && bytes.byteOffset + bytes.length + grows <= bytes.buffer.byteLength) {
    withRoom.delete(bytes);
    return escapedInPlace(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length + grows), runs, { start, grows, length: bytes.length });
  }
  const out = Buffer.allocUnsafe(bytes.length - start + grows);
  let written = 0;
  let from = start;
  for (const run of runs) {
    written += bytes.copy(out, written, from, run.from);
    written += out.write(run.text, written, 'latin1');
    from = run.to;
  }
  written += bytes.copy(out, written, from);
  return out.toString('latin1', 0, written);
}

/**
 * The escapes written into the bytes where they lie, the last run first: what follows a run moves
 * right by what the runs up to it grow (once, within memory already read), and its escape goes
 * where the runs before it put it.
 */
function escapedInPlace(view: Buffer, runs: ReadonlyArray<{ from: number; to: number; text: string }>, at: { start: number; grows: number; length: number }): string {
  let shift = at.grows;
  let end = at.length;
  for (let k = runs.length - 1; k >= 0; k--) {
    const run = runs[k];
    view.copyWithin(run.to + shift, run.to, end);
    shift -= run.text.length - (run.to - run.from);
    view.write(run.text, run.from + shift, 'latin1');
    end = run.from;
  }
  return view.toString('latin1', at.start, at.length + at.grows);
}

/** Below this size a description is parsed whole: looking for parts to leave out costs more than it saves. */
const PRUNE_FROM_BYTES = 1024 * 1024;

/**
 * The parts of a document no command reads: its webhooks (3.1's, and GitHub's `x-webhooks`), and
 * the Example Objects of its components (referred to from `examples` maps of media and
 * parameters, which no command follows; a schema's own `examples` stay). A fifth of GitHub's
 * description.
 */
const UNREAD_TOP: ReadonlySet<string> = new Set(['webhooks', 'x-webhooks']);
const UNREAD_IN_COMPONENTS: ReadonlySet<string> = new Set(['examples']);

/** A pretty-printed document's line end and indent, as its first member shows them. */
interface Layout {
  eol: string;
  indent: string;
}

/**
 * The members of an object in pretty-printed JSON between `from` and `to`: each one's name and
 * where its line starts. A member's line is a line end, `depth` indents and a quote; every line
 * inside a member is indented deeper, and no string holds a line break, so a search for that
 * short run finds exactly the members.
 */
function membersOf(bytes: Buffer, layout: Layout, depth: number, from: number, to: number): Array<{ name: string; at: number }> {
  const head = Buffer.from(`${layout.eol}${layout.indent.repeat(depth)}"`);
  const out: Array<{ name: string; at: number }> = [];
  for (let at = bytes.indexOf(head, from); at >= 0 && at < to; at = bytes.indexOf(head, at + head.length)) {
    const start = at + head.length;
    const end = bytes.indexOf(0x22, start);
    // The names looked for are plain words: a longer one, or one with an escape, is none of them.
    if (end > start && end - start <= 32) out.push({ name: bytes.toString('latin1', start, end), at });
  }
  return out;
}

/**
 * Where a member's object value lies, from after its `{` to the line that closes it (the first
 * line after it of the member's own indent). Only when the member reads `"name": {` and the
 * closing line is followed by a sibling or by the end of its parent, as pretty-printing writes
 * them; else nothing.
 */
function memberBody(bytes: Buffer, layout: Layout, depth: number, member: { name: string; at: number }): [number, number] | undefined {
  const pad = layout.indent.repeat(depth);
  const head = `${layout.eol}${pad}${JSON.stringify(member.name)}: {`;
  if (bytes.toString('latin1', member.at, member.at + head.length) !== head) return undefined;
  const open = member.at + head.length;
  const closing = `${layout.eol}${pad}}`;
  const close = bytes.indexOf(closing, open, 'latin1');
  if (close < 0) return undefined;
  const next = close + closing.length;
  const after = bytes.toString('latin1', next, next + layout.eol.length + pad.length + 2);
  return after.startsWith(`,${layout.eol}${pad}"`) || after.startsWith(`${layout.eol}${layout.indent.repeat(depth - 1)}}`) ? [open, close] : undefined;
}

/**
 * A large pretty-printed document's bytes without the insides of the parts no command reads
 * (UNREAD_TOP, UNREAD_IN_COMPONENTS): each is left an empty object, moved up within the same
 * memory, so a fifth less is decoded and parsed. The layout comes from the document's first member
 * (its line end and indent); a document laid out otherwise (compact, braces on lines of their own)
 * is kept whole, as are small ones. The same bytes when nothing is left out.
 */
function withoutUnreadParts(bytes: Buffer): Buffer {
  if (bytes.length < PRUNE_FROM_BYTES) return bytes;
  const first = /^(?:\uFEFF)?\s*\{(\r?\n)([ \t]{1,8})"/.exec(bytes.toString('utf8', 0, 64));
  if (!first) return bytes;
  const layout = { eol: first[1], indent: first[2] };
  const cuts: Array<[number, number]> = [];
  for (const member of membersOf(bytes, layout, 1, 0, bytes.length)) {
    const unread = UNREAD_TOP.has(member.name);
    if (!unread && member.name !== 'components') continue;
    const body = memberBody(bytes, layout, 1, member);
    if (!body) continue;
    if (unread) cuts.push(body);
    else
      for (const inner of membersOf(bytes, layout, 2, body[0], body[1]))
        if (UNREAD_IN_COMPONENTS.has(inner.name)) {
          const innerBody = memberBody(bytes, layout, 2, inner);
          if (innerBody && innerBody[1] <= body[1]) cuts.push(innerBody);
        }
  }
  if (!cuts.length) return bytes;
  let written = cuts[0][0];
  cuts.forEach(([, close], i) => {
    const end = i + 1 < cuts.length ? cuts[i + 1][0] : bytes.length;
    written += bytes.copy(bytes, written, close, end);
  });
  return bytes.subarray(0, written);
}

function depthOf(value: unknown, limit: number): number {
  // Iterative: a walk by recursion would overflow the stack on the very documents it is meant to refuse.
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max && (max = depth) > limit) return max;
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return max;
}

function tooDeep(where: string): CliError {
  return new CliError(`The API description ${where} nests more than ${MAX_DOCUMENT_DEPTH} levels deep; no description needs that many, so it is not read.`, { code: 'openapi_invalid' });
}

/** The first line of a parser's message, without the excerpt some parsers append. */
function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text
    .split('\n')[0]
    .slice(0, 200)
    .replace(/[.:]\s*$/, '');
}

/** A JSON or YAML document, checked to be OpenAPI 3; `where` names it in errors (a URL or a path, made printable by the caller). */
export function parseDescription(bytes: Buffer, where: string, options: { reread?: () => Buffer } = {}): ParsedDescription {
  // Bytes read with room are the parser's to rewrite, when it can read them again: what is rewritten
  // no longer holds the document, should it not be JSON after all (a YAML flow mapping starts with `{`).
  if (!options.reread) withRoom.delete(bytes);
  const hadRoom = withRoom.has(bytes);
  // First the parts no command reads left out.
  const kept = hadRoom ? withoutUnreadParts(bytes) : bytes;
  if (kept !== bytes) withRoom.add(kept);
  const text = jsonText(kept);
  // Escapes written into the bytes (readDescriptionFile) leave them changed: the text is the document's JSON then.
  const rewritten = hadRoom && (kept !== bytes || !withRoom.has(kept));
  const looksJson = /^\s*[{[]/.test(text);
  let doc: unknown;
  let format: ParsedDescription['format'] | undefined;
  let jsonError: unknown;
  if (looksJson) {
    // V8 parses any depth without recursion; the walks after it guard their own depth (see operation-detail.ts).
    try {
      doc = JSON.parse(text);
      format = 'json';
    } catch (err) {
      // Rewritten bytes that do not parse as JSON: the document is read again, and parsed whole as it is.
      if (rewritten && options.reread) {
        // Parsed without a way back: not rewritten again.
        return parseDescription(options.reread(), where);
      }
      jsonError = err;
    }
  }
  if (format === undefined) {
    format = 'yaml';
    const yaml: typeof import('yaml') = requireCommonJs('yaml');
    try {
      const utf8 = bytes.toString('utf8').replace(/^\uFEFF/, '');
      doc = yaml.parse(utf8, { maxAliasCount: MAX_YAML_ALIASES, prettyErrors: false, uniqueKeys: false });
    } catch (err) {
      if (err instanceof RangeError) throw tooDeep(where);
      const reason = reasonOf(jsonError ?? err);
      throw new CliError(`The API description ${where} is not valid ${looksJson ? 'JSON' : 'JSON or YAML'} (${reason}).`, { code: 'openapi_invalid' });
    }
    if (depthOf(doc, MAX_DOCUMENT_DEPTH) > MAX_DOCUMENT_DEPTH) throw tooDeep(where);
  }
  if (!isObject(doc)) throw new CliError(`The API description ${where} is not an OpenAPI document (it is not a JSON or YAML object).`, { code: 'openapi_invalid' });
  if (typeof doc.swagger === 'string' || typeof doc.swagger === 'number') {
    throw new CliError(`The API description ${where} is Swagger ${String(doc.swagger).slice(0, 10)}; school reads OpenAPI 3 (3.0 or 3.1): convert it first (e.g. npx swagger2openapi).`, {
      code: 'openapi_invalid',
    });
  }
  const version = typeof doc.openapi === 'string' ? doc.openapi : undefined;
  if (version !== undefined && !/^3\./.test(version)) {
    throw new CliError(`The API description ${where} is OpenAPI ${version.slice(0, 20)}; school reads OpenAPI 3.0 and 3.1.`, { code: 'openapi_invalid' });
  }
  // 3.1 lets a document hold only webhooks or components: no operations, but an OpenAPI document all the same.
  if (!isObject(doc.paths) && (version === undefined || doc.paths !== undefined)) {
    throw new CliError(`The API description ${where} is not an OpenAPI document (it has no "paths").`, { code: 'openapi_invalid' });
  }
  const bom = bomLength(bytes);
  return { doc, json: format === 'json' ? (rewritten ? text : bytes.subarray(bom)) : JSON.stringify(doc), format };
}
