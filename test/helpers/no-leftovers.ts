// Set up for every end-to-end file: once its tests are over, nothing it started may still run.
// Leftovers are killed, so they never outlive the suite, and named in a failure.
import { afterAll } from 'vitest';
import { reapLeftovers } from './leftover-processes.js';

afterAll(async () => {
  const left = await reapLeftovers(String(process.pid));
  if (left.length > 0) {
    throw new Error(`This file left ${left.length} process(es) running (now killed):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`);
  }
});
