// Builds the installed CLI: one ES module in dist/, so `school token` pays for one file instead
// of dozens. Packages stay external and are loaded only where a command needs them.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/cli.js', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
