import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OWNER_VARIABLE, processesOwnedBy, reapLeftovers } from '../helpers/leftover-processes.js';

describe.runIf(process.platform === 'linux')('the leftover-process check of the end-to-end files', () => {
  it('finds a process carrying the owner mark, kills it, and leaves unmarked ones alone', async () => {
    const owner = randomUUID();
    const marked = spawn('sleep', ['30'], { env: { ...process.env, [OWNER_VARIABLE]: owner }, stdio: 'ignore' });
    const unmarked = spawn('sleep', ['30'], { env: { ...process.env, [OWNER_VARIABLE]: 'someone else' }, stdio: 'ignore' });
    const exited = new Promise((r) => marked.once('exit', (_code, signal) => r(signal)));
    try {
      await new Promise((r) => marked.once('spawn', r));
      expect(processesOwnedBy(owner).map((p) => p.pid)).toEqual([marked.pid]);
      const left = await reapLeftovers(owner, 200);
      expect(left).toEqual([{ pid: marked.pid, command: 'sleep 30' }]);
      expect(await exited).toBe('SIGKILL');
      expect(processesOwnedBy(owner)).toEqual([]);
      expect(unmarked.exitCode).toBeNull();
    } finally {
      unmarked.kill('SIGKILL');
    }
  });
});
