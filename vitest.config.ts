import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own process: sandboxes, browsers and keyring sessions never share state.
    pool: 'forks',
    fileParallelism: true,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
