import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest files the summary names. */
const SLOWEST = 5;

/**
 * Ends the run with one plain line, `Tests: N passed, N failed, N skipped`, that any CI can read,
 * after the slowest files of the run with their durations: where the suite's time goes.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    const timed = modules.map((m) => ({ file: m.relativeModuleId, ms: m.diagnostic().duration })).sort((a, b) => b.ms - a.ms);
    if (timed.length > 1) {
      process.stdout.write('\nSlowest files:\n');
      for (const { file, ms } of timed.slice(0, SLOWEST)) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}\n`);
    }
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
