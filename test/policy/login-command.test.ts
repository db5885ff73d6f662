import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every `school login …` a person or an agent is told to run comes from one writer,
// src/util/login-command.ts (loginCommandText): the words in one order, --profile and --base-url
// where they apply, every value quoted for the shell. No other source file writes the words
// `school login` in its code, but for these, which are text about the command rather than a
// command to run, each for the reason given.
const WRITER = 'util/login-command.ts';
const EXCEPTIONS: Record<string, string> = {
  'commands/table.ts': "the command table's help text and examples, which docs/commands.md and --help are made from",
  'errors.ts': "the exit codes' meanings, which name the command in prose",
  'mcp/server.ts': "the MCP server's instructions to the host, which name the command in prose",
};

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A source text without its comments, which may speak of the command freely. */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

const writers = sourceFiles(SRC)
  .filter((path) => /school login\b/.test(codeOf(readFileSync(path, 'utf8'))))
  .map((path) => relative(SRC, path))
  .sort();

describe('`school login …` command lines', () => {
  it('are found where the writer writes them (the pattern matches real code)', () => {
    expect(writers).toContain(WRITER);
  });

  it('are written by the one writer alone, the named exceptions aside', () => {
    expect(writers.filter((file) => file !== WRITER && !(file in EXCEPTIONS))).toEqual([]);
  });

  it('has no exception left that no longer needs one', () => {
    expect(Object.keys(EXCEPTIONS).filter((file) => !writers.includes(file))).toEqual([]);
  });
});
