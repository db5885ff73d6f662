import type { DetailLine, IndexEntry } from '../../api/api-index.js';
import { shellWord as quotedWord } from '../../util/login-command.js';
import type { FieldSpec } from '../../api/operation-detail.js';
import { printable } from '../../util/printable.js';
import { BUILTIN_FLAGS, type OperationFlag } from './flags.js';

/** Server text for one line of help: controls made visible, runs of space shrunk, cut to a length. */
export function line(text: string | undefined, max = 200): string {
  if (!text) return '';
  const one = printable(text.replace(/\s+/g, ' ').trim());
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** Paragraphs of server text, wrapped for a terminal and indented. */
function paragraph(text: string, indent: string, width = 78): string {
  const words = printable(text.replace(/\s+/g, ' ').trim()).slice(0, 2000).split(' ');
  const lines: string[] = [];
  let current = '';
  for (const w of words) {
    if (current && current.length + 1 + w.length > width - indent.length) {
      lines.push(current);
      current = w;
    } else current = current ? `${current} ${w}` : w;
  }
  if (current) lines.push(current);
  return lines.map((l) => `${indent}${l}`).join('\n');
}

function typeLabel(field: FieldSpec): string {
  if (field.enum) return field.enum.map((v) => printable(String(v))).join('|');
  return field.type === 'json' ? 'json' : field.type;
}

/** A value to show in the example line, for a field of this type. */
function exampleValue(field: FieldSpec): string {
  if (field.default !== undefined && field.default !== null) return shellWord(String(field.default));
  if (field.enum?.length) return shellWord(String(field.enum[0]));
  const name = field.name.toLowerCase();
  if (field.type === 'integer') return /seat|count|size|limit|capacity/.test(name) ? '30' : '1';
  if (field.type === 'number') return '1.5';
  if (field.type === 'boolean') return 'true';
  if (field.type === 'json') return `'{}'`;
  if (field.format === 'email' || name.includes('email')) return 'ada@example.edu';
  if (field.format === 'date-time') return '2030-01-01T09:00:00Z';
  if (field.format === 'date') return '2030-01-01';
  if (field.format === 'uri' || field.format === 'url') return 'https://example.edu/';
  if (/title|name/.test(name)) return 'Algebra';
  return 'text';
}

/** A value from the description as a shell word: made printable, then quoted where a shell would read it. */
const shellWord = (text: string): string => quotedWord(printable(text));

export function pathParams(detail: DetailLine): FieldSpec[] {
  return detail.fields.filter((f) => f.location === 'path');
}

export function placeholder(field: FieldSpec): string {
  return `<${field.name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40) || 'arg'}>`;
}

function describeScopes(entry: Pick<IndexEntry, 'scopeSets' | 'anonymous'>): string {
  const alternatives = entry.scopeSets.filter((s) => s.length).map((s) => s.map(printable).join(' and '));
  if (!alternatives.length) return entry.anonymous ? 'none (anonymous callers allowed)' : 'a token, no particular scope';
  return `${alternatives.join(', or ')}${entry.anonymous ? ' (anonymous callers allowed: send with --anonymous)' : ''}`;
}

/** `school api <operation> --help`. */
export function operationHelp(entry: IndexEntry, detail: DetailLine, flags: readonly OperationFlag[]): string {
  const out: string[] = [];
  const name = entry.command;
  out.push(`${name}: ${line(entry.summary) || `${entry.method} ${line(entry.path)}`}${entry.deprecated ? ' (deprecated)' : ''}`);
  if (detail.description) out.push('', paragraph(detail.description, '  '));
  out.push('', `Request: ${entry.method} ${line(entry.path, 300)}`, `Scopes:  ${describeScopes(entry)}`);
  const positional = pathParams(detail);
  out.push('', 'Usage:', `  school api ${name}${positional.map((p) => ` ${placeholder(p)}`).join('')} [flags]`);
  if (positional.length) {
    out.push('', 'Arguments:');
    for (const p of positional) out.push(`  ${placeholder(p).padEnd(24)} ${typeLabel(p)}, required${p.description ? `. ${line(p.description, 120)}` : ''}`);
  }
  const rows = flags.map((f) => {
    const left = `--${f.flag} <${typeLabel(f.field).slice(0, 60)}>${f.field.array ? '...' : ''}`;
    const notes = [
      f.field.location === 'body' ? 'body' : f.field.location,
      f.field.required ? 'required' : '',
      f.field.array ? 'repeatable' : '',
      f.field.default !== undefined ? `default ${line(JSON.stringify(f.field.default), 40)}` : '',
      f.field.format ? `format ${line(f.field.format, 30)}` : '',
      f.field.limits ? line(f.field.limits, 80) : '',
      f.field.deprecated ? 'deprecated' : '',
    ].filter(Boolean);
    const text = [`(${notes.join(', ')})`, line(f.field.description, 160), f.renamed ? `Renamed: ${f.renamed}.` : ''].filter(Boolean).join(' ');
    return [left, text] as const;
  });
  if (rows.length) {
    const width = Math.min(34, Math.max(...rows.map(([l]) => l.length)));
    out.push('', 'Flags:');
    for (const [left, text] of rows) out.push(left.length > width ? `  ${left}\n  ${' '.repeat(width)}  ${text}` : `  ${left.padEnd(width)}  ${text}`);
  }
  if (entry.body) {
    out.push('', 'Body:', `  ${line(detail.request.media.map((m) => m.type).join(', '), 120)}${entry.body.required ? ', required' : ''}: ${bodyWays(detail, flags)}`);
  }
  const required = flags.filter((f) => f.field.required);
  const example = [`school api ${name}`, ...positional.map(placeholder), ...required.map((f) => `--${f.flag} ${exampleValue(f.field)}`)];
  if (!required.length) {
    const first = flags.find((f) => f.field.location === 'body') ?? flags[0];
    if (first) example.push(`--${first.flag} ${exampleValue(first.field)}`);
  }
  out.push('', 'Example:', `  ${example.join(' ')}`, `  ${example.join(' ')} --dry-run`);
  out.push(
    '',
    'Flags of every operation:',
    '  --dry-run, --no-validate, --anonymous, --input <file|->, --content-type <type>,',
    '  --format json|table, --columns <a,b,c>, --jq <expr>, --paginate, --slurp, -i/--include,',
    '  --timeout <s>, --retry <n>, --refresh',
    '  (school api --help says what each does)',
  );
  return `${out.join('\n')}\n`;
}

/** How the body is given: from fields (flags, a file field from @path) or --input, or from --input byte for byte. */
function bodyWays(detail: DetailLine, flags: readonly OperationFlag[]): string {
  const [first] = detail.request.media;
  const others = detail.request.media.length > 1 ? '; --content-type <type> sends another than the first' : '';
  if (first?.kind === 'raw') return `from --input <file|->, sent byte for byte${others}`;
  const files = first?.kind === 'multipart' && flags.some((f) => f.field.location === 'body' && f.field.format === 'binary');
  return `${detail.bodyIsObject ? 'from the flags above, ' : ''}or the whole of it from --input <file|-> (flags override its values)${files ? '; a file field takes @path, or @- for standard input' : ''}${others}`;
}

const VALUE_NAMES: Record<string, string> = { input: 'file|-', format: 'json|table', columns: 'a,b,c', jq: 'expression', timeout: 'seconds', retry: 'n' };

/** `school api --help`. */
export function apiHelp(): string {
  const rows = Object.entries(BUILTIN_FLAGS)
    .filter(([name]) => !['base-url', 'profile', 'json', 'verbose'].includes(name))
    .map(([name, f]) => [`${f.short ? `-${f.short}, ` : ''}--${name}${f.value ? ` <${VALUE_NAMES[name] ?? 'value'}>` : ''}`, f.help] as const);
  const width = Math.max(...rows.map(([l]) => l.length));
  return [
    'Usage: school api [<operation> [<path-arg>...] [flags]]',
    '',
    "The API's operations as commands, from the description the server publishes (/openapi.json).",
    'Without an operation: every operation, by area, with the scopes it needs (--json: an array).',
    'Each operation takes its path parameters as arguments, in order, and its query and header',
    'parameters and body fields as flags (--title Algebra --seats 30; nested: --address.city Paris;',
    'arrays: repeat the flag). The request is checked against the description before it is sent.',
    '',
    'Options:',
    ...rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h}`),
    '',
    'Global options: --base-url <url>, --profile <name>, --json, --verbose',
    '',
    'The description is cached per base URL and used while fresh (its Cache-Control max-age, else',
    '24 hours), then revalidated; when the server cannot be reached the cached copy is used.',
    '',
    'Examples:',
    '  school api',
    '  school api list-courses --format table',
    '  school api create-course --help',
    '  school api create-course --title Algebra --seats 30 --dry-run',
    '  school api get-course c-101 --jq .title',
    '',
  ].join('\n');
}
