import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own process: sandboxes, browsers and keyring sessions never share state.
    pool: 'forks',
    fileParallelism: true,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // `vitest run --project unit` is the fast loop: no build, browser, keyring or D-Bus.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // The sandbox package's own tests, with its own config (sandbox/vitest.config.ts).
      'sandbox',
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
