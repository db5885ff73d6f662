import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// An operation's request is built in one place, src/api/request-builder.ts (its serializers under
// src/api/request/), so every front-end sends an operation the same way: none of them encodes a
// parameter, fills a path template or writes a body of its own.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const FRONT_ENDS = /^(commands|mcp|library)\//;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC).map((path) => ({ file: relative(SRC, path), text: readFileSync(path, 'utf8') }));
const importsOf = (file: string, text: string) =>
  [...text.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'(\.[^']+)'/gm)].map((m) => relative(SRC, resolve(dirname(join(SRC, file)), m[1])).replace(/\.js$/, '.ts'));

describe('one request builder', () => {
  it('is what school api and the MCP operation tools build with', () => {
    const users = files.filter(({ file, text }) => importsOf(file, text).includes('api/request-builder.ts')).map(({ file }) => file);
    expect(users).toEqual(expect.arrayContaining(['commands/api/request.ts', 'mcp/server.ts']));
  });

  it('has serializers no other module reaches', () => {
    const reaching = files
      .filter(({ file }) => !file.startsWith('api/'))
      .flatMap(({ file, text }) =>
        importsOf(file, text)
          .filter((to) => to.startsWith('api/request/'))
          .map((to) => `${file} -> ${to}`),
      );
    expect(reaching).toEqual([]);
  });

  it('leaves no front-end encoding a parameter or filling a path template', () => {
    const found = files
      .filter(({ file }) => FRONT_ENDS.test(file))
      .flatMap(({ file, text }) => {
        const hits: string[] = [];
        if (/\bencodeURI(?:Component)?\(/.test(text)) hits.push(`${file}: encodes a URI part`);
        // A template's `{name}` matched to be replaced: /\{([^{}]+)\}/ or the like.
        if (/\/\\\{\(\[\^\{?\}?\{?\}?\]\+\)\\\}\//.test(text)) hits.push(`${file}: fills a path template`);
        return hits;
      });
    expect(found).toEqual([]);
  });
});
