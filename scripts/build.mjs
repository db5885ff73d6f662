// Builds the installed CLI into one CommonJS file, dist/cli.cjs: starting without the ES module
// loader, from one file instead of dozens, is what keeps `school token` fast. Packages stay
// external and are loaded with import() only where a command needs them.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const outfile = new URL('../dist/cli.cjs', import.meta.url).pathname;

async function bundle(extraDefines) {
  await build({
    entryPoints: [new URL('../src/cli.ts', import.meta.url).pathname],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // The sources are ES modules; their one use of import.meta.url gets the bundle's own URL.
    banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    // __SCHOOL_VERSION__: the one version string, package.json's, fixed at build time.
    define: { 'import.meta.url': '__bundleUrl', __SCHOOL_VERSION__: JSON.stringify(version), ...extraDefines },
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await bundle({});
// `school --help` on a pipe is the same text every time: rendered once here by the full parser
// (commander, 80 columns), it is printed at run time without building the command tree.
const env = { ...process.env };
for (const name of ['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE', 'SCHOOL_PROFILE', 'SCHOOL_BASE_URL']) delete env[name];
const rendered = spawnSync(process.execPath, [outfile, '--help'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
if (rendered.status !== 0 || !rendered.stdout.startsWith('Usage: school')) {
  console.error(`build: rendering school --help failed (exit ${rendered.status}).`);
  process.exit(1);
}
await bundle({ __SCHOOL_HELP__: JSON.stringify(rendered.stdout) });
