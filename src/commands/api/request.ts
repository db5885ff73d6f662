/**
 * `school api`'s request: the values of its command line read (path arguments in path order,
 * flags, --input, files given as @path), checked against the description, then built by the one
 * request builder (api/request-builder.ts). No parameter is encoded and no body written here.
 */
import { basename } from 'node:path';
import type { DetailLine, IndexEntry } from '../../api/api-index.js';
import type { FieldSpec, FieldType } from '../../api/operation-detail.js';
import { FilePart, buildOperationRequest, chooseMedia } from '../../api/request-builder.js';
import type { Deps } from '../../deps.js';
import { UsageError, messageOf } from '../../errors.js';
import { underBase } from '../../http/request-url.js';
import { jsonType } from '../../util/json.js';
import { printable } from '../../util/printable.js';
import { bodyWithoutMark } from '../../util/text-file.js';
import { readNamedFile } from '../input-file.js';
import { type OperationFlag, pathArguments } from '../../api/operation-flags.js';
import { type ParsedLine, flagValues, setPath } from './flags.js';
import { line, placeholder } from './help.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: string | true | undefined): string | undefined => (typeof v === 'string' ? v : undefined);

/** The path parameters in the order the command takes them: the order the path names them. */
function orderedPathParams(entry: IndexEntry, detail: DetailLine): FieldSpec[] {
  return pathArguments(entry.path, detail.fields);
}

export interface ApiRequest {
  method: string;
  /** For display; `path` is the path and query exactly as sent (see underBase). */
  url: URL;
  path: string;
  /** The operation's own server, when it has one (see request-builder.ts). */
  server?: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The JSON value the body is made from, for --dry-run to show. */
  json?: unknown;
}

/** The flag that sets a body path, or a phrase naming the place. */
function nameOfPlace(flags: readonly OperationFlag[], location: Exclude<FieldSpec['location'], 'path'>, path: string[]): string {
  const exact = flags.find((f) => f.field.location === location && (location === 'body' ? f.field.path?.join('\u0000') === path.join('\u0000') : f.field.name === path[0]));
  // A property of an object-valued parameter is named as its dotted flag sets it (`--filter.name`).
  const property =
    location === 'body'
      ? ''
      : path
          .slice(1)
          .map((p) => `.${printable(p)}`)
          .join('');
  if (exact) return `--${exact.flag}${property}`;
  const where = path.map((p) => printable(p)).join('.');
  if (location !== 'body') return `the ${location} parameter ${where}`;
  return where ? `the body's field ${where}` : 'the body';
}

/** A file field of a multipart body: `@path` (`@-` standard input) read into its bytes, named as the file is. */
async function filePart(deps: Deps, flag: string, value: unknown): Promise<unknown> {
  if (typeof value !== 'string' || !value.startsWith('@')) throw new UsageError(`--${flag} is a file: give it as @path, or @- for standard input.`);
  const source = value.slice(1);
  const bytes = await readNamedFile(source, deps.io.in);
  return new FilePart(bytes, source === '-' ? 'stdin' : basename(source));
}

/**
 * The simple type a parameter's schema gives one of its properties (`created.gt`: integer), or
 * the type of its items where it is an array of them (`filter.name`: strings), if it gives one.
 */
function propertyType(schema: Record<string, unknown> | undefined, path: readonly string[]): { type: FieldType; array: boolean } | undefined {
  const defs = isObject(schema?.$defs) ? schema.$defs : {};
  const follow = (node: unknown): Record<string, unknown> | undefined => {
    for (let hops = 0; isObject(node) && typeof node.$ref === 'string' && hops < 8; hops++) node = defs[node.$ref.replace('#/$defs/', '')];
    return isObject(node) ? node : undefined;
  };
  let node = follow(schema);
  for (const key of path) {
    const props = isObject(node?.properties) ? node.properties : undefined;
    node = follow(props && Object.hasOwn(props, key) ? props[key] : node?.additionalProperties);
  }
  const simple = (at: Record<string, unknown> | undefined): FieldType | undefined => {
    const types = at ? (Array.isArray(at.type) ? at.type : [at.type]).filter((t) => t !== 'null') : [];
    return types.length === 1 && ['string', 'integer', 'number', 'boolean'].includes(types[0] as string) ? (types[0] as FieldType) : undefined;
  };
  const types = node ? (Array.isArray(node.type) ? node.type : [node.type]).filter((t) => t !== 'null') : [];
  if (types.length === 1 && types[0] === 'array') {
    const items = simple(follow(node?.items));
    return items ? { type: items, array: true } : undefined;
  }
  const type = simple(node);
  return type ? { type, array: false } : undefined;
}

export interface BuildInput {
  baseUrl: string;
  entry: IndexEntry;
  detail: DetailLine;
  flags: OperationFlag[];
  parsed: ParsedLine;
  validate: boolean;
}

/**
 * The request of the command line: its values read (arguments, flags, --input, files), checked
 * against the description, then built by the one request builder (api/request-builder.ts).
 */
export async function buildRequest(deps: Deps, { baseUrl, entry, detail, flags, parsed, validate }: BuildInput): Promise<ApiRequest> {
  const commandPath = `school api ${entry.command}`;
  const positional = orderedPathParams(entry, detail);
  if (parsed.args.length < positional.length) {
    const missing = positional.slice(parsed.args.length).map(placeholder).join(' ');
    throw new UsageError(`'${commandPath}' needs ${missing}. Usage: ${commandPath}${positional.map((p) => ` ${placeholder(p)}`).join('')} [flags]`);
  }
  if (parsed.args.length > positional.length) {
    throw new UsageError(`Too many arguments for '${commandPath}' (it takes ${positional.length}, got ${parsed.args.length}). Run '${commandPath} --help'.`);
  }
  const values = flagValues(parsed, flags, (flag, path) => propertyType(detail.paramSchemas[`${flag.field.location}:${flag.field.name}`], path));
  const params: Record<string, unknown> = {};
  const violations: string[] = [];
  const checks: Array<{ schema: Record<string, unknown>; value: unknown; place: (p: string[]) => string }> = [];

  for (const { flag, value } of values) {
    const field = flag.field;
    if (field.location === 'body') continue;
    params[`${field.location}:${field.name}`] = value;
    const schema = detail.paramSchemas[`${field.location}:${field.name}`];
    if (schema) checks.push({ schema, value, place: (p) => nameOfPlace(flags, field.location as Exclude<FieldSpec['location'], 'path'>, [field.name, ...p]) });
  }
  for (const [i, p] of positional.entries()) {
    const raw = parsed.args[i];
    params[`path:${p.name}`] = raw;
    const schema = detail.paramSchemas[`path:${p.name}`];
    const value = p.type === 'integer' || p.type === 'number' ? (Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : raw) : raw;
    if (schema) checks.push({ schema, value, place: (rest) => `${placeholder(p)}${rest.length ? `/${rest.join('/')}` : ''}` });
  }
  if (validate) {
    for (const f of detail.fields) {
      // A required header the client sets itself (Accept, Content-Type) has no flag: the client sends it.
      const settable = flags.some((fl) => fl.field === f);
      if (f.location !== 'path' && f.location !== 'body' && f.required && settable && !values.some((v) => v.flag.field === f)) {
        violations.push(`${nameOfPlace(flags, f.location, [f.name])} is required`);
      }
    }
  }

  // The body: its media type (--content-type, else the first offered), then --input, then the flags over it.
  const input = parsed.builtins.get('input');
  const asked = str(parsed.builtins.get('content-type'));
  const bodyFlags = values.filter((v) => v.flag.field.location === 'body');
  if (asked !== undefined && !detail.request.media.length) throw new UsageError(`'${commandPath}' takes no request body: --content-type has nothing to name.`);
  const media = chooseMedia(detail.request, asked, bodyFlags.length > 0 || typeof input !== 'string');
  let body: unknown;
  let bytes: Buffer | undefined;
  if (typeof input === 'string') {
    if (!media) throw new UsageError(`'${commandPath}' takes no request body (${entry.method} ${line(entry.path)}): --input has nothing to fill.`);
    const read = await readNamedFile(input, deps.io.in);
    if (media.kind === 'raw') {
      if (bodyFlags.length) throw new UsageError(`The ${media.type} body of '${commandPath}' is sent as --input has it: flags cannot set its fields.`);
      bytes = read;
    } else {
      try {
        // JSON text (of a body, or of a form's fields) may begin with a byte order mark; it is no part of the value.
        body = JSON.parse(bodyWithoutMark(read).toString('utf8'));
      } catch {
        // Any media type (`*/*`) takes other bytes too, sent as they are.
        if (media.type === '*/*' && !bodyFlags.length) bytes = read;
        else {
          const what = media.kind === 'json' ? 'JSON' : `${media.type}, given as the JSON object of its fields`;
          throw new UsageError(`${input === '-' ? 'Standard input' : input} is not JSON: the body of '${commandPath}' is ${what}${bodyFlags.length ? ', and flags set its fields' : ''}.`);
        }
      }
    }
  }
  if (bodyFlags.length) {
    if (body === undefined) body = {};
    if (!isObject(body)) throw new UsageError(`--input holds no JSON object, so the flags ${bodyFlags.map((v) => `--${v.flag.flag}`).join(', ')} have no fields to set.`);
    for (const { flag, value } of bodyFlags) setPath(body, flag.field.path ?? [flag.field.name], value);
  }
  if (validate && entry.body?.required && body === undefined && bytes === undefined) {
    const required = flags.filter((f) => f.field.location === 'body' && f.field.required).map((f) => `--${f.flag}`);
    if (media?.kind === 'raw') violations.push(`the request body (${media.type}) is required: give it with --input <file>`);
    else violations.push(`the request body is required: ${required.length ? `give ${required.join(', ')}` : 'give its fields as flags'} or --input <file>`);
  }
  // The schema of the media type sent: another media type made of fields may have its own.
  const bodySchema = media ? (detail.mediaSchemas?.[media.type] ?? detail.bodySchema) : undefined;
  if (validate && body !== undefined && bodySchema) checks.push({ schema: bodySchema, value: body, place: (p) => nameOfPlace(flags, 'body', p) });

  // A schema that only names the type the flag already parsed to asks nothing more: the validator is not loaded for it.
  const needed = checks.filter((c) => !(Object.keys(c.schema).length === 1 && c.schema.type === jsonType(c.value)));
  if (validate && needed.length) {
    const { check, CheckTookTooLong, CHECK_TIME_LIMIT_MS } = await import('./checks.js');
    for (const c of needed) {
      try {
        for (const v of check(c.schema, c.value)) violations.push(`${c.place(v.path)} ${v.expected}`);
      } catch (err) {
        // Most often a pattern of the description backtracking on a value it does not match; else
        // a schema the validator cannot follow. Either way the value is unchecked, which is not valid.
        if (err instanceof CheckTookTooLong)
          violations.push(`${c.place([])} could not be checked against the description in ${CHECK_TIME_LIMIT_MS / 1000} s (one of its patterns backtracks on this value)`);
        else violations.push(`${c.place([])} could not be checked against the description (${printable(messageOf(err).split('\n')[0])})`);
      }
    }
  }
  if (violations.length) {
    const shown = violations.slice(0, 4);
    const more = violations.length - shown.length;
    throw new UsageError(`Not sent: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`, {
      hint: `'${commandPath} --help' lists its arguments and flags; --no-validate sends it anyway.`,
    });
  }
  // A multipart file field's `@path` becomes its bytes, once the checks have seen the word given.
  const json = body;
  if (media?.kind === 'multipart' && isObject(body)) {
    body = structuredClone(body);
    for (const { flag } of bodyFlags) {
      if (flag.field.format !== 'binary') continue;
      const path = flag.field.path ?? [flag.field.name];
      const given = path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), body);
      setPath(body as Record<string, unknown>, path, Array.isArray(given) ? await Promise.all(given.map((g) => filePart(deps, flag.flag, g))) : await filePart(deps, flag.flag, given));
    }
  }

  const argName = (p: { name: string }) => {
    const field = positional.find((f) => f.name === p.name);
    return field ? placeholder(field) : `the parameter ${printable(p.name)}`;
  };
  const built = buildOperationRequest(
    detail.request,
    { params, ...(bytes ? { body: { bytes } } : body !== undefined ? { body: { value: body } } : {}), ...(asked !== undefined ? { contentType: asked } : {}) },
    { baseUrl, anonymous: parsed.builtins.has('anonymous'), argName },
  );
  const { url, path } = underBase(built.server ?? baseUrl, built.path);
  const shownJson = media?.kind === 'json' && body !== undefined ? { json } : {};
  return { method: built.method, url, path, ...(built.server ? { server: built.server } : {}), headers: built.headers, ...(built.body ? { body: built.body } : {}), ...shownJson };
}
