// `school` is not published on the npm registry, and the package named `school` there is someone
// else's: a line of the documentation that installs or runs a bare package name would run a
// stranger's code, in a CI job that holds refresh-token secrets. Every install line of the README
// and docs/ installs a path (the tarball `npm pack` builds from a clone, or the clone itself), and
// every `npx` runs a tool of our own devDependencies, inside the clone.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

/** The commands that install packages, and those that run a package's program. */
const INSTALL = /\b(?:npm\s+(?:install|i|add)|pnpm\s+(?:add|install|i)|yarn\s+(?:global\s+)?add)\b/g;
const RUN = /\b(?:npx|npm\s+(?:exec|x)|pnpm\s+(?:dlx|exec)|yarn\s+dlx)\b/g;
/** Where a command's words end: the shell's separators, a comment, the end of inline code, a remark in brackets. */
const END = /[;&|#`()\n]/;

/** The programs our devDependencies provide (`biome` of @biomejs/biome…), and the packages themselves. */
function devTools(): Set<string> {
  const tools = new Set<string>();
  for (const name of Object.keys(manifest.devDependencies)) {
    tools.add(name);
    const { bin } = JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
    if (typeof bin === 'string') tools.add(name.replace(/^@[^/]+\//, ''));
    else for (const command of Object.keys(bin ?? {})) tools.add(command);
  }
  return tools;
}

/** The words after each match of `command` on the line, up to the end of that command. */
function argumentsOf(line: string, command: RegExp): string[][] {
  return [...line.matchAll(command)].map((m) => {
    const rest = line.slice(m.index + m[0].length);
    const end = rest.search(END);
    return (end < 0 ? rest : rest.slice(0, end)).split(/\s+/).filter(Boolean);
  });
}

const isPath = (word: string) => /^(?:\.{1,2}(?:\/|$)|\/|~\/)/.test(word) || /\.tgz$/.test(word);
const operands = (words: string[]) => words.filter((w) => !w.startsWith('-'));

/** What is wrong with one line of documentation, if anything. */
function strangers(line: string, tools: Set<string>): string[] {
  const installed = argumentsOf(line, INSTALL).flatMap((words) => operands(words).filter((w) => !isPath(w)));
  const run = argumentsOf(line, RUN).flatMap((words) =>
    operands(words)
      .slice(0, 1)
      .filter((w) => !tools.has(w.replace(/(.)@.*$/, '$1'))),
  );
  return [...installed.map((name) => `installs ${name}`), ...run.map((name) => `runs ${name}`)];
}

function documents(): string[] {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

describe('install lines in the documentation', () => {
  const tools = devTools();

  it('tell a path or a tool of our own from a name someone else may own', () => {
    expect(strangers('npm install -g school', tools)).toEqual(['installs school']);
    expect(strangers('      - run: npm i -g school@1.2.0 && school --help', tools)).toEqual(['installs school@1.2.0']);
    expect(strangers('`pnpm add school` or `yarn global add school`', tools)).toEqual(['installs school', 'installs school']);
    expect(strangers('npx school login', tools)).toEqual(['runs school']);
    expect(strangers('npm install -g ./school-0.1.0.tgz      # puts `school` on your PATH', tools)).toEqual([]);
    expect(strangers('// report.mjs: npm install ./school-0.1.0.tgz (see Install), then: node report.mjs', tools)).toEqual([]);
    expect(strangers('Plain `npm install -g .` only links', tools)).toEqual([]);
    expect(strangers('`npx biome check --write .` fixes', tools)).toEqual([]);
    expect(strangers('npx vitest run --project peers', tools)).toEqual([]);
    expect(strangers('npm ci && npm run build', tools)).toEqual([]);
  });

  it('install what this project builds and run only its own tools, in README.md and docs/*.md', () => {
    const found = documents().flatMap((file) =>
      readFileSync(join(REPO, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => strangers(line, tools).map((what) => `${file}:${i + 1}: ${what}`)),
    );
    expect(found).toEqual([]);
  });
});
