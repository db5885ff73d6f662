// Builds the installed CLI into one CommonJS file, dist/cli.cjs: starting without the ES module
// loader, from one file instead of dozens, is what keeps `school token` fast. Packages stay
// external and are loaded with import() only where a command needs them.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// A file path from a path relative to this script: fileURLToPath, never URL.pathname, which keeps
// `%20` for a space and gives `/C:/…` on Windows.
const here = (relative) => fileURLToPath(new URL(relative, import.meta.url));

const { version } = JSON.parse(readFileSync(here('../package.json'), 'utf8'));
const outfile = here('../dist/cli.cjs');
// The build's own copy of oauth4webapi beside the CLI (see bundleOAuth), named to the CLI at build time.
const OAUTH_BUNDLE = './oauth4webapi.cjs';

async function bundle(extraDefines) {
  await build({
    entryPoints: [here('../src/cli.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    // The sources are ES modules; their one use of import.meta.url gets the bundle's own URL.
    banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    // __SCHOOL_VERSION__: the one version string, package.json's, fixed at build time.
    define: {
      'import.meta.url': '__bundleUrl',
      __SCHOOL_VERSION__: JSON.stringify(version),
      __SCHOOL_OAUTH_BUNDLE__: JSON.stringify(OAUTH_BUNDLE),
      ...extraDefines,
    },
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}

// oauth4webapi, as CommonJS of its own beside the CLI: loaded with require() by the commands that
// speak the protocol, without starting the ES module loader, and given the small Headers and
// Response of src/http/web-types.ts (and a fetch that refuses) in place of Node's fetch globals,
// whose loading costs more than the rest of a refresh; see src/oauth/library-globals.ts.
async function bundleOAuth() {
  await build({
    entryPoints: [createRequire(import.meta.url).resolve('oauth4webapi')],
    outfile: here(`../dist/${OAUTH_BUNDLE}`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    inject: [here('../src/oauth/library-globals.ts')],
    legalComments: 'inline',
    logLevel: 'warning',
  });
}

rmSync(here('../dist'), { recursive: true, force: true });
await bundleOAuth();
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

// The CLI compiled from a code cache has no import(): every import() left in the bundle must be
// importPackage's fallback for a Node that cannot require() an ES module (src/util/require.ts).
const imports = readFileSync(outfile, 'utf8').match(/\bimport\(/g) ?? [];
if (imports.length !== 1) {
  console.error(`build: dist/cli.cjs has ${imports.length} import() calls, not only importPackage's; load packages with importPackage and built-in modules with requireCommonJs.`);
  process.exit(1);
}

// The V8 code cache of the final dist/cli.cjs, made by one run of `school token` with nothing
// configured (see scripts/code-cache.cjs). A Node that cannot use one (bin/school.cjs then
// requires the CLI) gets none.
if (process.features.require_module) {
  const scratch = mkdtempSync(join(tmpdir(), 'school-build-'));
  const trainingEnv = { PATH: process.env.PATH, HOME: scratch, SCHOOL_CONFIG_DIR: join(scratch, 'config'), NO_COLOR: '1' };
  const trained = spawnSync(process.execPath, [here('./code-cache.cjs'), 'token'], {
    env: trainingEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  rmSync(scratch, { recursive: true, force: true });
  if (trained.status !== 4 || !trained.stderr.includes('Not logged in')) {
    console.error(`build: making the code cache, \`school token\` with nothing configured exited ${trained.status}: ${trained.stderr.trim()}`);
    process.exit(1);
  }
}
