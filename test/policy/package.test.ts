import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string>; files: string[] };

describe('the published package', () => {
  it('runs no script of its own at install time: it is built when packed', () => {
    // npm runs these on the installing machine (and npm 11 names each one that allowScripts does not cover);
    // the README's Install asks to allow keytar's alone.
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts[hook], hook).toBeUndefined();
    expect(manifest.scripts.prepack).toMatch(/npm run build/);
    expect(manifest.files).toContain('dist');
  });

  it('names every dependency whose install script npm ci may run, so it runs them without a warning (or, on an npm that blocks them, at all)', () => {
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const allowed = (manifest as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts).toContain('keytar');
    expect(withScripts.filter((name) => allowed[name] !== true)).toEqual([]);
    // And no approval outlives the script it was given for.
    expect(Object.keys(allowed).filter((name) => !withScripts.includes(name))).toEqual([]);
  });

  it('is built by the setup a fresh clone runs first', () => {
    expect(readFileSync(join(REPO, '.ci', 'setup'), 'utf8')).toMatch(/^npm run build/m);
    expect(manifest.scripts.demo).toMatch(/^npm run build/);
    expect(manifest.scripts.test).toMatch(/^npm run build/);
  });
});

/**
 * Whether a version is in an npm `engines` range: the forms package locks hold (`>=`, `>`, `<`,
 * `<=`, `^`, `~`, bare and partial versions, `x`, `*`, `||`). A form it cannot read fails the
 * test rather than passing it.
 */
function inRange(version: string, range: string): boolean {
  // A prerelease (a nightly Node) is compared as its release.
  const have = version.replace(/^v/, '').split(/[.-]/).slice(0, 3).map(Number);
  const compare = (a: number[], b: number[]) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const meets = (comparator: string) => {
    const m = /^(>=|<=|>|<|=|\^|~)?v?(\*|x|\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?$/.exec(comparator);
    if (!m) throw new Error(`an engines range this check cannot read: ${range}`);
    const [, op = '', ...raw] = m;
    const given = raw.findIndex((p) => p === undefined || p === 'x' || p === '*');
    const precision = given < 0 ? 3 : given;
    if (precision === 0) return op !== '<' && op !== '>';
    // Past the first wildcard every part is a wildcard: ^1.x.2 is ^1.
    const low = raw.map((p, i) => (i < precision ? Number(p) : 0));
    // The first version past the range a partial version names: 1.2 → 1.3.0.
    const past = (at: number) => low.map((n, i) => (i < at ? n : i === at ? n + 1 : 0));
    const from = compare(have, low);
    switch (op) {
      case '>=':
        return from >= 0;
      case '>':
        return precision === 3 ? from > 0 : compare(have, past(precision - 1)) >= 0;
      case '<':
        return from < 0;
      case '<=':
        return precision === 3 ? from <= 0 : compare(have, past(precision - 1)) < 0;
      case '^': {
        const at = low[0] > 0 || precision === 1 ? 0 : low[1] > 0 || precision === 2 ? 1 : 2;
        return from >= 0 && compare(have, past(at)) < 0;
      }
      case '~':
        return from >= 0 && compare(have, past(precision === 1 ? 0 : 1)) < 0;
      default:
        return precision === 3 ? from === 0 : from >= 0 && compare(have, past(precision - 1)) < 0;
    }
  };
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every(meets),
  );
}

describe('the Node versions the dependencies ask for', () => {
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; engines?: { node?: string } }> };
  const engines = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const asked = Object.entries(lock.packages).flatMap(([path, entry]) => (path && entry.engines?.node ? [{ path, dev: entry.dev === true, range: entry.engines.node }] : []));

  it('reads the ranges the lock holds', () => {
    expect(inRange('20.20.2', '20 || >=22')).toBe(true);
    expect(inRange('20.18.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(inRange('20.20.2', '>=22.19.0')).toBe(false);
    expect(inRange('20.0.0', '>= 0.6')).toBe(true);
    expect(inRange('20.0.0', '^12.17.0 || ^14.13 || >=16.0.0')).toBe(true);
    expect(inRange('16.5.0', '^12.20.0 || ^14.13.1 || >=16.0.0')).toBe(true);
    expect(inRange('15.0.0', '^12.20.0 || ^14.13.1 || >=16.0.0')).toBe(false);
    expect(inRange('20.1.0', '>=0.6.x')).toBe(true);
    expect(inRange('21.0.0', '^20.0.0 || ^22.0.0 || >=24.0.0')).toBe(false);
    expect(inRange('18.1.0', '~18.2')).toBe(false);
    expect(inRange('20.0.0', '*')).toBe(true);
    expect(inRange('2.0.0', '^1.x.2')).toBe(false);
    expect(inRange('1.0.0', '^1.x.2')).toBe(true);
    expect(inRange('v24.0.0-nightly20260101', '>=24')).toBe(true);
    expect(inRange('1.2.9', '<=1.2')).toBe(true);
    expect(inRange('1.3.0', '<=1.2')).toBe(false);
    expect(asked.length).toBeGreaterThan(50);
  });

  it(`what the package needs at run time works on every Node its engines field (${engines}) admits`, () => {
    const floor = /^>=\s*(\d+)$/.exec(engines);
    expect(floor, 'engines.node is a plain floor').not.toBeNull();
    // The first release of every major from the floor on, through one past the newest line today.
    const majors = Array.from({ length: 26 - Number(floor![1]) }, (_, i) => `${Number(floor![1]) + i}.0.0`);
    const refused = majors.flatMap((version) => asked.filter((p) => !p.dev && !inRange(version, p.range)).map((p) => `${p.path} wants Node ${p.range}, not ${version}`));
    expect(refused).toEqual([]);
  });

  it('npm ci warns of no engine on any Node .ci/setup takes, whose release lines the README names', () => {
    const listed = /^NODE_FOR_DEVELOPMENT="([\d. ]+)"$/m.exec(readFileSync(join(REPO, '.ci', 'setup'), 'utf8'))?.[1].split(' ');
    expect(listed?.length).toBeGreaterThan(0);
    const named = listed!.map((v) => `${v.replace(/(\.0)+$/, '')}+`);
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toContain(`Node.js ${named.slice(0, -1).join(', ')} or ${named.at(-1)}`);
    // The first of each release line, and the next major after the last (which setup takes too).
    const last = listed!.at(-1)!;
    const versions = [...listed!, `${Number(last.split('.')[0]) + 1}.0.0`];
    const refused = versions.flatMap((version) => asked.filter((p) => !inRange(version, p.range)).map((p) => `${p.path} wants Node ${p.range}, not ${version}`));
    expect(refused).toEqual([]);
  });

  it('npm ci warns of no engine on the Node that runs the tests (EBADENGINE)', () => {
    const refused = asked.filter((p) => !inRange(process.version, p.range));
    expect(refused.map((p) => `${p.path} wants Node ${p.range}`)).toEqual([]);
  });
});
