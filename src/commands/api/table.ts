import { UsageError } from '../../errors.js';
import { printable } from '../../util/printable.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The longest cell shown; the rest is cut with an ellipsis. */
const MAX_CELL = 60;

/** The rows of an answer: an array as it is; a list wrapped in an object (`{"courses": […]}`), its items. */
function rowsOf(value: unknown, listKey?: string): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return undefined;
  if (listKey && Array.isArray(value[listKey])) return value[listKey] as unknown[];
  const arrays = Object.values(value).filter((v): v is unknown[] => Array.isArray(v));
  if (arrays.length === 1) return arrays[0];
  return undefined;
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = printable(typeof value === 'string' ? value : JSON.stringify(value));
  return text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text;
}

/**
 * An answer as a table. `pages` holds one answer, or every page of a paginated listing; the
 * columns are the ones asked for (`asked`), else those of the response schema, else the fields of
 * the rows; of the last two, a column empty in every row is left out.
 */
export function renderTable(pages: unknown[], options: { columns?: string[]; listKey?: string; asked?: boolean }): string {
  const rows: unknown[] = [];
  for (const page of pages) {
    const found = rowsOf(page, options.listKey);
    if (found) rows.push(...found);
    else if (isObject(page))
      rows.push(page); // one record: a table of one row
    else throw new UsageError('--format table needs a JSON array or object in the answer.');
  }
  let columns = options.columns;
  if (!columns?.length) {
    const seen = new Set<string>();
    for (const row of rows.slice(0, 50)) if (isObject(row)) for (const [k, v] of Object.entries(row)) if (!isObject(v) && !Array.isArray(v)) seen.add(k);
    columns = [...seen].slice(0, 8);
  }
  if (!columns.length) columns = ['value'];
  const cells = rows.map((row) => columns!.map((c) => cell(isObject(row) ? row[c] : c === 'value' ? row : undefined)));
  // A column nothing fills says nothing: left out, unless asked for by name (--columns).
  const kept = columns.map((_, i) => options.asked === true || cells.length === 0 || cells.some((r) => r[i] !== ''));
  if (kept.some(Boolean)) {
    columns = columns.filter((_, i) => kept[i]);
    for (const [n, r] of cells.entries()) cells[n] = r.filter((_, i) => kept[i]);
  }
  const table = [columns.map((c) => cell(c).toUpperCase()), ...cells];
  const widths = columns.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  return `${table
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}
