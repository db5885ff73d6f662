import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorAction, type ErrorCode, isErrorCode, serverErrorCode } from '../../src/error-codes.js';
import { AuthError, CliError, UsageError, describeError } from '../../src/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
const README = join(ROOT, 'README.md');
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
      used.set(match[1], [...(used.get(match[1]) ?? []), file.slice(ROOT.length + 1)]);
    }
  }
  return used;
}

const ACTION_TEXT: Record<ErrorAction, string> = {
  retry: 'retry later',
  log_in: 'log in (`hint` has the command)',
  add_scope: 'log in with the scope (`hint` has the command)',
  fix_command: 'fix the command line',
  fix_environment: 'fix the environment',
  report: 'report it to the server operator',
  none: 'nothing',
};

/** The README's table, rendered from the catalogue. */
function renderTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, info]) => `| \`${code}\` | ${info.exit} | ${info.meaning.replace(/\|/g, '\\|')} | ${ACTION_TEXT[info.action]} |`);
  return ['| `error` | exit | meaning | what to do |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

describe('the error-code catalogue', () => {
  it('holds every code the sources use', () => {
    const used = codesUsedInSources();
    expect(used.size).toBeGreaterThan(20);
    const missing = [...used].filter(([code]) => !isErrorCode(code)).map(([code, files]) => `${code} (${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('is the table in the README (UPDATE_README=1 rewrites it)', () => {
    const readme = readFileSync(README, 'utf8');
    const start = readme.indexOf(TABLE_START);
    const end = readme.indexOf(TABLE_END);
    expect(start, `README.md needs ${TABLE_START} … ${TABLE_END}`).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    const expected = `${TABLE_START}\n${renderTable()}\n${TABLE_END}`;
    const actual = readme.slice(start, end + TABLE_END.length);
    if (actual !== expected && process.env.UPDATE_README === '1') {
      writeFileSync(README, readme.slice(0, start) + expected + readme.slice(end + TABLE_END.length));
      return;
    }
    expect(actual).toBe(expected);
  });

  it('gives each code one line of meaning and an exit code of the contract', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(info.meaning).toMatch(/^[A-Za-z].*\.$/);
      expect(info.meaning).not.toContain('\n');
      expect([1, 2, 4, 130]).toContain(info.exit);
    }
  });

  it('decides the exit code of an error by its code', () => {
    expect(new CliError('x', { code: 'not_logged_in' }).exitCode).toBe(4);
    expect(new CliError('x', { code: 'network_error' }).exitCode).toBe(1);
    expect(new UsageError('x').exitCode).toBe(2);
    expect(new UsageError('x', { code: 'blocked_port' })).toMatchObject({ code: 'blocked_port', exitCode: 2 });
    expect(new AuthError('x')).toMatchObject({ code: 'auth_required', exitCode: 4 });
    const codes: ErrorCode[] = ['usage', 'refresh_refused', 'timeout', 'interrupted'];
    for (const code of codes) expect(describeError(new CliError('x', { code })).exitCode).toBe(ERROR_CODES[code].exit);
  });

  it('passes on the OAuth codes a server may send, and files any other under oauth_error', () => {
    expect(serverErrorCode('invalid_grant')).toBe('invalid_grant');
    expect(serverErrorCode('temporarily_unavailable')).toBe('temporarily_unavailable');
    expect(serverErrorCode('slow_down')).toBe('oauth_error');
    // A server cannot make its answer look like one of the CLI's own codes.
    expect(serverErrorCode('not_logged_in')).toBe('oauth_error');
  });

  it('reports anything unclassified as unexpected_error', () => {
    expect(describeError(new Error('disk on fire'))).toMatchObject({ error: 'unexpected_error', exitCode: 1, message: 'disk on fire' });
  });
});
