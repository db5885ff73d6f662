/**
 * The one listing of an API's operations, for scripts: `school api --json` and
 * `call --list --json` print these rows, and the text listings of both read them. Made from the
 * cached index and detail lines (keys in snake_case, as every `--json` output, `operationId`
 * aside), so it names each operation, parameter and body field exactly as `school api` takes
 * them: its command, positional arguments in the order taken, and the flag that sets every other
 * field.
 */
import type { DetailLine, IndexEntry } from './api-index.js';
import type { FieldSpec } from './operation-detail.js';
import { flagsOf, pathArguments } from './operation-flags.js';

interface ListedField {
  name: string;
  required: boolean;
  /** The flag's type: string, integer, number, boolean or json; `[]` after it for a repeated flag. */
  type: string;
  enum?: Array<string | number | boolean | null>;
  /** The flag that sets it (`--per-page`); absent for a path parameter (positional) or a header the client sets itself. */
  flag?: string;
}

interface ListedParameter extends ListedField {
  in: 'path' | 'query' | 'header';
  /** A path parameter's place among the command's arguments, from 1. */
  position?: number;
}

export interface ListingRow {
  command: string;
  /**
   * The description's `operationId`, under OpenAPI's own name for it (the contract's): a script
   * matches it against the description as it is spelled there. The one key of school's `--json`
   * outputs not in snake_case.
   */
  operationId: string | null;
  method: string;
  path: string;
  summary: string;
  scopes: string[];
  area: string;
  /** Whether it also answers callers without a token (send with --anonymous). */
  anonymous: boolean;
  paginated: boolean;
  deprecated: boolean;
  /** The request body's media types, the one sent by default first; empty without a body. */
  media_types: string[];
  body_required: boolean;
  parameters: ListedParameter[];
  /** The body's fields that flags set (dotted for nesting, as the flag is). */
  body_fields: ListedField[];
}

function listedField(field: FieldSpec, flag: string | undefined): ListedField {
  return {
    name: field.name,
    required: field.required,
    type: `${field.type}${field.array ? '[]' : ''}`,
    ...(field.enum ? { enum: field.enum } : {}),
    ...(flag ? { flag: `--${flag}` } : {}),
  };
}

/**
 * The body's media types: every one the operation offers, as its detail line holds them (the
 * request shape's `media`), else the one the index names.
 */
function mediaTypesOf(entry: IndexEntry, detail: DetailLine | undefined): string[] {
  if (!entry.body) return [];
  const media = (detail as { request?: { media?: unknown } } | undefined)?.request?.media;
  const all = Array.isArray(media) ? media.map((m: { type?: unknown }) => m?.type).filter((t): t is string => typeof t === 'string') : [];
  return all.length ? all : [entry.body.contentType];
}

/**
 * One row per operation, in the description's order. `own` are the flag names of `school api`
 * itself, which an operation's flags never take; `details[i]` is the detail line of operation `i`
 * (a row without it lists no fields).
 */
export function listingRows(operations: readonly IndexEntry[], details: ReadonlyArray<DetailLine | undefined>, own: ReadonlySet<string>): ListingRow[] {
  return operations.map((op, i) => {
    const fields = details[i]?.fields ?? [];
    const flags = new Map(flagsOf(fields, own).map((f) => [f.field, f.flag]));
    const positions = pathArguments(op.path, fields);
    const parameters: ListedParameter[] = fields
      .filter((f): f is FieldSpec & { location: ListedParameter['in'] } => f.location !== 'body')
      .map((f) => ({
        ...listedField(f, flags.get(f)),
        in: f.location,
        ...(f.location === 'path' ? { position: positions.indexOf(f) + 1 } : {}),
      }));
    return {
      command: op.command,
      operationId: op.operationId ?? null,
      method: op.method,
      path: op.path,
      summary: op.summary ?? '',
      scopes: op.scopes,
      area: op.area,
      anonymous: op.anonymous,
      paginated: op.paginated,
      deprecated: op.deprecated === true,
      media_types: mediaTypesOf(op, details[i]),
      body_required: op.body?.required === true,
      parameters,
      body_fields: fields.filter((f) => f.location === 'body').map((f) => listedField(f, flags.get(f))),
    };
  });
}
