// Every test a document cites as proof (`conformance.test.ts`, or [`test/unit/x.test.ts`: "its title"])
// exists, is run by `npm test` (a vitest project takes its file), and runs for any user: a cited
// test skipped for the CI user, or for anyone but root, proves nothing where it matters.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CITATION = /`((?:[\w.-]+\/)*[\w.-]+\.test\.ts)`(?:: "([^"]+)")?/g;
/** A declaration that runs only sometimes, or never: skipped, conditional, left to do, or the only one. */
const NOT_ALWAYS_RUN = /\b(?:it|test|describe)\s*\.\s*(?:skip|skipIf|runIf|todo|only|fails)\b/;

function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .map((n) => join('docs', n));
  return ['README.md', ...docs];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.test.ts') && !n.includes('node_modules'))
    .map((n) => relative(ROOT, join(dir, n)));
}

const TEST_FILES = [...filesUnder(join(ROOT, 'test')), ...filesUnder(join(ROOT, 'sandbox', 'test'))];

/** The test file a citation names: a path from the root, or a file name found once among the tests. */
function resolveCited(cited: string): string | undefined {
  if (cited.includes('/')) return existsSync(join(ROOT, cited)) ? cited : undefined;
  const found = TEST_FILES.filter((f) => f.endsWith(`/${cited}`));
  return found.length === 1 ? found[0] : undefined;
}

/** The `include` globs of the vitest projects, as paths from the root (the sandbox's under sandbox/). */
function projectGlobs(): string[] {
  const globsOf = (text: string) => [...text.matchAll(/include:\s*\[([^\]]*)\]/g)].flatMap((m) => [...m[1]!.matchAll(/'([^']+)'/g)].map((g) => g[1]!));
  const root = readFileSync(join(ROOT, 'vitest.config.ts'), 'utf8');
  const sandbox = readFileSync(join(ROOT, 'sandbox', 'vitest.config.ts'), 'utf8');
  return [...globsOf(root), ...(root.includes("'sandbox'") ? globsOf(sandbox).map((g) => `sandbox/${g}`) : [])];
}

function matchesGlob(path: string, glob: string): boolean {
  const pattern = glob
    .split('**/')
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
    .join('(?:.*/)?');
  return new RegExp(`^${pattern}$`).test(path);
}

interface Citation {
  doc: string;
  file: string;
  title?: string;
}

const citations: Citation[] = documents().flatMap((doc) => [...readFileSync(join(ROOT, doc), 'utf8').matchAll(CITATION)].map((m) => ({ doc, file: m[1]!, ...(m[2] ? { title: m[2] } : {}) })));

describe('tests the documents cite as proof', () => {
  it('are cited at all (the check reads the citations)', () => {
    expect(citations.length).toBeGreaterThan(100);
    expect(citations.some((c) => c.doc === 'docs/security.md' && c.title)).toBe(true);
    expect(citations.some((c) => !c.file.includes('/'))).toBe(true);
  });

  it('exist, each file and each title named', () => {
    const missing: string[] = [];
    for (const c of citations) {
      const file = resolveCited(c.file);
      if (!file) missing.push(`${c.doc}: ${c.file}`);
      else if (c.title && !readFileSync(join(ROOT, file), 'utf8').includes(c.title)) missing.push(`${c.doc}: ${c.file} "${c.title}"`);
    }
    expect(missing).toEqual([]);
  });

  it('are run by npm test: every vitest project it runs, and a project that takes each file', () => {
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.test ?? '';
    // vitest itself, or the wrapper that runs it with every argument as given (test/helpers/run-vitest.sh).
    expect(script).toMatch(/\b(?:vitest|test\/helpers\/run-vitest\.sh) run\b/);
    if (script.includes('run-vitest.sh')) expect(readFileSync(join(ROOT, 'test/helpers/run-vitest.sh'), 'utf8')).toMatch(/^exec vitest "\$@"$/m);
    expect(script).not.toMatch(/--project|--exclude|\.test\.ts/);
    const globs = projectGlobs();
    expect(globs.length).toBeGreaterThanOrEqual(4);
    const outside = [...new Set(citations.map((c) => resolveCited(c.file)).filter((f): f is string => f !== undefined))].filter((f) => !globs.some((g) => matchesGlob(f, g)));
    expect(outside).toEqual([]);
  });

  it('run for any user: no cited test, nor the file holding it, is skipped or conditional', () => {
    const conditional: string[] = [];
    for (const c of citations) {
      const file = resolveCited(c.file);
      if (!file) continue;
      const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
      // A whole file run only for some users (by uid, name or CI) proves nothing for the others.
      if (lines.some((l) => /\bdescribe\s*\.\s*(?:skip|skipIf|runIf)\b/.test(l) && /getuid|geteuid|USER|\bCI\b|userInfo/.test(l))) conditional.push(`${file} (a describe run for some users only)`);
      if (!c.title) continue;
      // The declaration of the title: its own line and the one before (a condition may stand on it).
      const at = lines.findIndex((l) => l.includes(c.title!));
      const declaration = lines.slice(Math.max(0, at - 1), at + 1).join('\n');
      if (NOT_ALWAYS_RUN.test(declaration)) conditional.push(`${file} "${c.title}"`);
    }
    expect(conditional).toEqual([]);
  });
});

describe('the check itself', () => {
  it('takes the vitest globs as vitest does', () => {
    expect(matchesGlob('test/unit/a.test.ts', 'test/unit/**/*.test.ts')).toBe(true);
    expect(matchesGlob('test/unit/deep/a.test.ts', 'test/unit/**/*.test.ts')).toBe(true);
    expect(matchesGlob('test/e2e/a.test.ts', 'test/unit/**/*.test.ts')).toBe(false);
    expect(matchesGlob('sandbox/test/a.test.ts', 'sandbox/test/**/*.test.ts')).toBe(true);
  });

  it('sees a skipped or root-only declaration', () => {
    for (const line of ["it.runIf(process.getuid?.() === 0)('x', async () => {", "it.skip('x', () => {", "describe.only('x', () => {", 'it.todo("x")']) {
      expect(NOT_ALWAYS_RUN.test(line), line).toBe(true);
    }
    expect(NOT_ALWAYS_RUN.test("it('refuses a link', async () => {")).toBe(false);
    expect(NOT_ALWAYS_RUN.test("it.each([1, 2])('x %s', () => {")).toBe(false);
  });
});
