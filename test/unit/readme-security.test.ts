// The README's Security section is a list of promises, each naming the test that holds it. A
// promise without a test, or naming a test that does not exist (renamed, removed), fails here.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CITATION = /\[`(test\/[\w./-]+\.test\.ts)`: "([^"]+)"\]/g;

/** The bullets of the Security section, each as one line of text. */
function securityPromises(readme: string): string[] {
  const start = readme.indexOf('\n## Security\n');
  expect(start, 'README has a "## Security" section').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const bullets: string[] = [];
  for (const line of section.split('\n')) {
    if (line.startsWith('- ')) bullets.push(line.slice(2));
    else if (line.startsWith('  ') && bullets.length) bullets[bullets.length - 1] += ` ${line.trim()}`;
  }
  return bullets;
}

describe('README Security section', () => {
  const promises = securityPromises(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('lists what is stored where, what is checked on every login and what is refused', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    for (const heading of ['### What is stored where', '### What is checked on every login', '### What is refused, and why']) expect(readme).toContain(heading);
    expect(promises.length).toBeGreaterThan(10);
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
