import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The floors of src/, from the ground up: a module may import its own floor and the floors below,
// never one above. docs/development.md shows the same table.
const FLOORS: Array<[number, RegExp]> = [
  [0, /^(types\/|util\/|errors\.ts$|error-codes\.ts$|version\.ts$)/],
  [1, /^(http\/|platform\/|iostreams\.ts$|ui\/)/],
  [2, /^(state\/|deps\.ts$)/],
  [3, /^(oauth\/|api\/)/],
  [4, /^session\//],
  [5, /^(login\/|doctor\/|run\/)/],
  [6, /^(commands\/|mcp\/|options\.ts$)/],
  [7, /^(cli\.ts$|program\.ts$|fast-path\.ts$|deps-system\.ts$|library\/)/],
];

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function floorOf(file: string): number | undefined {
  return FLOORS.find(([, pattern]) => pattern.test(file))?.[0];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every relative import of a file (static, type-only and export-from alike, and `await import(…)`,
 * which loads a module later but depends on it all the same), as paths under src/.
 */
function importsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const fromClauses = text.matchAll(/^\s*(?:import|export)\b[^'";]*?from\s+'(\.[^']+)'/gm);
  const loadedLater = text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g);
  const specifiers = [...fromClauses, ...loadedLater].map((m) => m[1]);
  return specifiers.map((s) => relative(SRC, resolve(dirname(path), s)).replace(/\.js$/, '.ts'));
}

const arrows = sourceFiles(SRC).flatMap((path) => importsOf(path).map((to) => ({ from: relative(SRC, path), to })));

describe('the layers of src/', () => {
  it('reads the imports it judges', () => {
    // The import scan itself must find the arrows: a pattern that matches nothing would pass every test below.
    expect(arrows.length).toBeGreaterThan(300);
    expect(arrows).toContainEqual({ from: 'session/session.ts', to: 'session/target.ts' });
    // A module loaded when it is needed is an arrow too.
    expect(arrows).toContainEqual({ from: 'commands/mcp/load-server.ts', to: 'mcp/server.ts' });
  });

  it('puts every source file on a floor', () => {
    expect(
      sourceFiles(SRC)
        .map((p) => relative(SRC, p))
        .filter((f) => floorOf(f) === undefined),
    ).toEqual([]);
  });

  it('has no import that runs back up a floor', () => {
    const upward = arrows.filter(({ from, to }) => (floorOf(to) ?? 0) > (floorOf(from) ?? 0)).map(({ from, to }) => `${from} -> ${to}`);
    expect(upward).toEqual([]);
  });

  it('keeps the front-ends apart: the MCP server imports no CLI command, and only `school mcp`, which starts it, imports the server', () => {
    const crossing = arrows.filter(
      ({ from, to }) => (from.startsWith('mcp/') && to.startsWith('commands/')) || (from.startsWith('commands/') && !from.startsWith('commands/mcp/') && to.startsWith('mcp/')),
    );
    expect(crossing).toEqual([]);
  });

  it("keeps the commands apart: no command's folder imports another's; what two need lives beside the table or below", () => {
    const folderOf = (file: string) => /^commands\/([^/]+)\//.exec(file)?.[1];
    const betweenFolders = ({ from, to }: { from: string; to: string }) => folderOf(from) !== undefined && folderOf(to) !== undefined && folderOf(from) !== folderOf(to);
    const crossing = arrows.filter(betweenFolders).map(({ from, to }) => `${from} -> ${to}`);
    // The one crossing left: the skill's example lines are `school api --help`'s, made by its help
    // from example values its checks accept; they move below the commands with help's examples.
    expect([...new Set(crossing)].sort()).toEqual(['commands/skill/skill.ts -> commands/api/checks.ts', 'commands/skill/skill.ts -> commands/api/help.ts']);
  });

  it('lets no module below the commands see the command line options', () => {
    const below = arrows.filter(({ from, to }) => to === 'options.ts' && (floorOf(from) ?? 0) < 6).map(({ from }) => from);
    expect(below).toEqual([]);
  });

  it('has the protocol steps import nothing of the stores', () => {
    expect(arrows.filter(({ from, to }) => from.startsWith('oauth/') && to.startsWith('state/'))).toEqual([]);
  });
});

// Where a request gets its Authorization header: the API client alone (session/api-client.ts), and
// the protocol floor (oauth/), whose requests to the token, revocation and userinfo endpoints go
// through oauth4webapi. A header built anywhere else would be a path for the token that skips the
// origin check, the renewal and the 401 retry.
const AUTHORIZATION_HEADER = /(?:^|[^-\w])authorization['"]?\s*[:=]\s*[`'"]|\.set\(\s*['"]authorization['"]|\[\s*['"]authorization['"]\s*\]\s*=|`(?:Bearer|DPoP) \$\{/im;
const MAY_BUILD_AUTHORIZATION = /^(session\/api-client\.ts$|oauth\/)/;

describe('the Authorization header', () => {
  const builders = sourceFiles(SRC)
    .filter((path) => AUTHORIZATION_HEADER.test(readFileSync(path, 'utf8')))
    .map((path) => relative(SRC, path));

  it('is found where the API client builds it (the pattern matches real code)', () => {
    expect(builders).toContain('session/api-client.ts');
  });

  it('is built nowhere outside the API client and the protocol floor', () => {
    expect(builders.filter((file) => !MAY_BUILD_AUTHORIZATION.test(file))).toEqual([]);
  });
});

// What an answer asks of the person (a login, a new token, a scope) is read in one place, the
// classifier (session/answer-problem.ts), which every front-end calls: none of them compares a
// status with 401 or 403, reads a WWW-Authenticate header or parses a challenge itself.
const FRONT_END = /^(commands\/|mcp\/|library\/|cli\.ts$|program\.ts$|fast-path\.ts$)/;
const READS_AUTH_ANSWER = [/www-authenticate/i, /\bstatus\s*[!=]==?\s*40[13]\b|\b40[13]\s*[!=]==?\s*[\w.]*status\b/, /\b(?:readChallenges?|readChallengeHeader|parseChallenges)\s*\(/];

/** A source text without its comments, which may well speak of a 401. */
function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('the answers of the API', () => {
  const readers = (files: string[]) =>
    files.filter((path) => {
      const code = codeOf(readFileSync(path, 'utf8'));
      return READS_AUTH_ANSWER.some((pattern) => pattern.test(code));
    });

  it('are read by the classifier (the patterns match real code)', () => {
    const found = readers(sourceFiles(SRC)).map((path) => relative(SRC, path));
    expect(found).toContain('session/answer-problem.ts');
    expect(found).toContain('session/api-client.ts');
  });

  it('are read by no front-end: commands, `school mcp` and the library present what the classifier says', () => {
    const frontEnds = sourceFiles(SRC).filter((path) => FRONT_END.test(relative(SRC, path)));
    expect(frontEnds.length).toBeGreaterThan(20);
    expect(readers(frontEnds).map((path) => relative(SRC, path))).toEqual([]);
    const challengeImports = arrows.filter(({ from, to }) => FRONT_END.test(from) && /^oauth\/challenge(-header)?\.ts$/.test(to));
    expect(challengeImports).toEqual([]);
  });
});
