// The rules that differ by operating system, each checked through the platform a test sets (as
// the clock and the environment are set), since these tests run on Linux only.
import { describe, expect, it } from 'vitest';
import { stopSignals } from '../../src/platform/stop-signals.js';

describe('signals that stop a run', () => {
  it('treat a hang-up like Ctrl-C and SIGTERM everywhere, with the exit status shells report', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(stopSignals(platform)).toEqual(
        expect.arrayContaining([
          { signal: 'SIGINT', exitCode: 130 },
          { signal: 'SIGTERM', exitCode: 143 },
          { signal: 'SIGHUP', exitCode: 129 },
        ]),
      );
    }
  });

  it('add Ctrl-Break (SIGBREAK) on Windows only', () => {
    expect(stopSignals('win32').map((s) => s.signal)).toContain('SIGBREAK');
    expect(stopSignals('linux').map((s) => s.signal)).not.toContain('SIGBREAK');
    expect(stopSignals('darwin').map((s) => s.signal)).not.toContain('SIGBREAK');
  });
});
