// A checkout may live under a path with a space (`~/my schöol/`, `C:\Users\Ada Lovelace\`). Every
// path a test helper, a script or the sandbox puts into text that is split into words again (a
// shell script, NODE_OPTIONS, a BROWSER command) goes through a quoting helper: shellCommand or
// shellWord for a shell, preloading for NODE_OPTIONS. A bare `${path}` there works in a checkout
// without spaces and breaks in the first one that has one; this finds such lines by their shape.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const SOURCES = /^(test|scripts|sandbox)\/.*\.(ts|mts|cts|mjs|cjs|js)$/;

/** An interpolation that is not one of the quoting helpers. */
const BARE = String.raw`\$\{(?!\s*(?:shellCommand|shellWord|quoted|preloading|JSON\.stringify)\()`;

/** The places where words are split again, each followed by a bare interpolation. */
const UNQUOTED: Array<{ what: string; pattern: RegExp }> = [
  { what: 'a module preloaded through NODE_OPTIONS (use preloading())', pattern: new RegExp(`(?:--require|--import|-r)[ =]${BARE}`) },
  { what: 'a program a shell script runs (use shellCommand())', pattern: new RegExp(String.raw`(?:^|[\s'"\x60;&|]|\\n)(?:exec|node)\s+${BARE}`) },
  { what: 'NODE_OPTIONS written as a template (use preloading())', pattern: /NODE_OPTIONS\s*[:=]\s*`/ },
];

/** The lines of `text` that put a path unquoted where words are split again. */
function unquotedPaths(text: string): Array<{ line: number; what: string }> {
  return text.split('\n').flatMap((line, i) => UNQUOTED.filter(({ pattern }) => pattern.test(line)).map(({ what }) => ({ line: i + 1, what })));
}

describe('paths in command lines', () => {
  it('finds the shapes it looks for, and passes the quoted ones', () => {
    expect(unquotedPaths('NODE_OPTIONS: `--require ${probe}`,').map((f) => f.what)).toHaveLength(2);
    expect(unquotedPaths('printf \'#!/bin/sh\\nexec node ${SCHOOL_BIN} "$@"\\n\'')).toHaveLength(1);
    expect(unquotedPaths('`#!/bin/sh\\nexec ${bin} "$@"`')).toHaveLength(1);
    expect(unquotedPaths('NODE_OPTIONS: preloading(probe),')).toEqual([]);
    expect(unquotedPaths('exec ${shellCommand(process.execPath, SCHOOL_BIN)} "$@"')).toEqual([]);
    expect(unquotedPaths('`exec ${quoted(process.execPath)} ${quoted(SCHOOL_BIN)} "$@"`')).toEqual([]);
    expect(unquotedPaths('COMP_POINT=\\${#COMP_LINE}')).toEqual([]);
  });

  it('are quoted in every test helper, script and sandbox source', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO, encoding: 'utf8' })
      .split('\n')
      .filter((f) => SOURCES.test(f) && f !== 'test/policy/command-line-paths.test.ts');
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(join(REPO, file), 'utf8');
      } catch {
        return []; // deleted in the work tree
      }
      return unquotedPaths(text).map(({ line, what }) => `${file}:${line}: ${what}`);
    });
    expect(found).toEqual([]);
  });
});
