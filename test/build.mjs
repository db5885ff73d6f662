// Builds the installed CLI into one CommonJS file, dist/cli.cjs: starting without the ES module
// loader, from one file instead of dozens, is what keeps `school token` fast. Packages stay
// external and are loaded with import() only where a command needs them.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
  outfile: new URL('../dist/cli.cjs', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  // The sources are ES modules; their one use of import.meta.url gets the bundle's own URL.
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  define: { 'import.meta.url': '__bundleUrl', __SCHOOL_VERSION__: JSON.stringify(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version) },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
