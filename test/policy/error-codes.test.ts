// The error-code catalogue against the tree: every code the sources hand to an error is in it, and
// the table of docs/troubleshooting.md is the catalogue, rendered.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_ACTION_TEXT, ERROR_CODES, isErrorCode } from '../../src/error-codes.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TABLE_FILE = join(ROOT, 'docs', 'troubleshooting.md');
const TABLE_START = '<!-- error-codes:start -->';
const TABLE_END = '<!-- error-codes:end -->';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every code string the sources hand to an error (`code: '…'`, or a report's `error: '…'`), by file. */
function codesUsedInSources(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, 'src'))) {
    if (file.endsWith('error-codes.ts')) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\b(?:code|error):\s*'([a-z][a-z0-9_]*)'/g)) {
      used.set(match[1]!, [...(used.get(match[1]!) ?? []), file.slice(ROOT.length + 1)]);
    }
  }
  return used;
}

/** The documentation's table, rendered from the catalogue. */
function renderTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, info]) => `| \`${code}\` | ${info.exit} | ${info.meaning.replace(/\|/g, '\\|')} | ${ERROR_ACTION_TEXT[info.action]} |`);
  return ['| `error` | exit | meaning | what to do |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

describe('the error-code catalogue and the tree', () => {
  it('holds every code the sources use', () => {
    const used = codesUsedInSources();
    expect(used.size).toBeGreaterThan(20);
    const missing = [...used].filter(([code]) => !isErrorCode(code)).map(([code, files]) => `${code} (${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('is the table in docs/troubleshooting.md (UPDATE_DOCS=1 rewrites it)', () => {
    const text = readFileSync(TABLE_FILE, 'utf8');
    const start = text.indexOf(TABLE_START);
    const end = text.indexOf(TABLE_END);
    expect(start, `docs/troubleshooting.md needs ${TABLE_START} … ${TABLE_END}`).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const expected = `${TABLE_START}\n${renderTable()}\n${TABLE_END}`;
    const actual = text.slice(start, end + TABLE_END.length);
    if (actual !== expected && process.env.UPDATE_DOCS === '1') {
      writeFileSync(TABLE_FILE, text.slice(0, start) + expected + text.slice(end + TABLE_END.length));
      return;
    }
    expect(actual).toBe(expected);
  });
});
