// docs/security.md is a list of promises, each naming the test that holds it. A promise without a
// test, or naming a test that does not exist (renamed, removed), fails here.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SECURITY = join(ROOT, 'docs', 'security.md');
const CITATION = /\[`((?:test|sandbox\/test)\/[\w./-]+\.test\.ts)`: "([^"]+)"\]/g;

/** The bullets of the document, each as one line of text. */
function promisesOf(text: string): string[] {
  const bullets: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('- ')) bullets.push(line.slice(2));
    else if (line.startsWith('  ') && bullets.length) bullets[bullets.length - 1] += ` ${line.trim()}`;
    else if (line.trim() === '' || line.startsWith('#')) bullets.push('');
  }
  return bullets.filter(Boolean);
}

describe('docs/security.md', () => {
  const text = readFileSync(SECURITY, 'utf8');
  const promises = promisesOf(text);

  it('says what is stored where, what is checked on every login, what the server may ask for and what is refused', () => {
    for (const heading of ['## What is stored where', '## What is checked on every login', '## What the server may ask for', '## What is refused, and why']) {
      expect(text).toContain(`\n${heading}\n`);
    }
    expect(promises.length).toBeGreaterThan(20);
  });

  it('names, for every promise, at least one test that exists', () => {
    for (const promise of promises) {
      const cited = [...promise.matchAll(CITATION)];
      expect(cited.length, `no test named for: ${promise.slice(0, 80)}…`).toBeGreaterThan(0);
      for (const [, file, title] of cited) {
        const path = join(ROOT, file!);
        expect(existsSync(path), `${file} does not exist`).toBe(true);
        expect(readFileSync(path, 'utf8'), `${file} has no test "${title}"`).toContain(title);
      }
    }
  });
});
