// Builds the installed CLI into one CommonJS file, dist/cli.cjs: starting without the ES module
// loader, from one file instead of dozens, is what keeps `school token` fast. Packages stay
// external and are loaded with import() only where a command needs them.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

// A file path from a path relative to this script: fileURLToPath, never URL.pathname, which keeps
// `%20` for a space and gives `/C:/…` on Windows.
const here = (relative) => fileURLToPath(new URL(relative, import.meta.url));

const { version } = JSON.parse(readFileSync(here('../package.json'), 'utf8'));
const outfile = here('../dist/cli.cjs');
// The build's own copy of oauth4webapi beside the CLI (see bundleOAuth), named to the CLI at build time.
const OAUTH_BUNDLE = './oauth4webapi.cjs';
// `school mcp`'s server with the MCP SDK inside, beside the CLI: loaded by that command alone.
const MCP_BUNDLE = './mcp.cjs';
// The JSON Schema validator of `school api`, one file beside the CLI: loaded when a request is checked.
const VALIDATOR_BUNDLE = './json-schema.cjs';

async function bundle(extraDefines, entry = '../src/cli.ts', out = outfile) {
  await build({
    entryPoints: [here(entry)],
    outfile: out,
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
      __SCHOOL_MCP_BUNDLE__: JSON.stringify(MCP_BUNDLE),
      __SCHOOL_VALIDATOR_BUNDLE__: JSON.stringify(VALIDATOR_BUNDLE),
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
// whose loading costs more than the rest of a refresh; see src/oauth/oauth4webapi-globals.ts.
async function bundleOAuth() {
  await bundlePackage('oauth4webapi', OAUTH_BUNDLE, { inject: [here('../src/oauth/oauth4webapi-globals.ts')] });
}

// @cfworker/json-schema as one CommonJS file: its nine modules, each resolved and read apart, cost
// a dry run of `school api` more than the rest of its checks.
async function bundleValidator() {
  await bundlePackage('@cfworker/json-schema', VALIDATOR_BUNDLE, { minifyWhitespace: true, minifySyntax: true });
}

/** A dependency as one CommonJS file of dist/, its licence comments kept. */
async function bundlePackage(name, file, options) {
  await build({
    entryPoints: [createRequire(import.meta.url).resolve(name)],
    outfile: here(`../dist/${file}`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    legalComments: 'inline',
    logLevel: 'warning',
    ...options,
  });
}

// The library (`import { openSession } from 'school'`): the same engine as CommonJS of its own,
// dist/library.cjs, behind a small ES module entry; its declarations from the sources, checked to
// stand alone (they may import only each other).
async function bundleLibrary() {
  await bundle({}, '../src/library/index.ts', here('../dist/library.cjs'));
  writeFileSync(
    here('../dist/index.js'),
    [
      "// The ES module entry of the package: the library's CommonJS bundle, compiled from its code cache (see bin/school.cjs).",
      "import { createRequire } from 'node:module';",
      "const loader = createRequire(import.meta.url)('../bin/school.cjs');",
      'const library = loader.loadBundle(loader.LIBRARY);',
      'export const openSession = library.openSession;',
      'export const SchoolError = library.SchoolError;',
      'export const scopeNeeded = library.scopeNeeded;',
      '',
    ].join('\n'),
  );
  const scratch = mkdtempSync(join(tmpdir(), 'school-types-'));
  const tsc = spawnSync(
    process.execPath,
    [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', here('../tsconfig.json'), '--declaration', '--emitDeclarationOnly', '--outDir', scratch],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (tsc.status !== 0) {
    console.error(`build: emitting the library's declarations failed:\n${tsc.stdout}${tsc.stderr}`);
    process.exit(1);
  }
  // The declarations the entry reaches, each copied once; one that reaches beyond the public types fails the build.
  const wanted = ['library/index.d.ts'];
  for (let i = 0; i < wanted.length; i++) {
    const file = wanted[i];
    const text = readFileSync(join(scratch, file), 'utf8');
    for (const [, spec] of text.matchAll(/from '(\.[^']+)'/g)) {
      const target = join(dirname(file), spec.replace(/\.js$/, '.d.ts'));
      if (!wanted.includes(target)) wanted.push(target);
    }
    mkdirSync(dirname(here(`../dist/types/${file}`)), { recursive: true });
    writeFileSync(here(`../dist/types/${file}`), text);
  }
  rmSync(scratch, { recursive: true, force: true });
  const allowed = new Set(['library/index.d.ts', 'library/types.d.ts', 'library/school-error.d.ts', 'library/scope-needed.d.ts', 'error-codes.d.ts']);
  const beyond = wanted.filter((f) => !allowed.has(f));
  if (beyond.length) {
    console.error(`build: the library's public declarations reach ${beyond.join(', ')}; keep the public types in src/library/types.ts.`);
    process.exit(1);
  }
}

// The MCP server (src/mcp/, the engine adapter aside) with the SDK and its dependencies in one
// CommonJS file: the SDK's module graph is most of the server's start-up, and one file with a
// code cache loads it in a fraction of the time the package's hundred-odd files take.
async function bundleMcp() {
  await build({
    entryPoints: [here('../src/mcp/server.ts')],
    outfile: here(`../dist/${MCP_BUNDLE}`),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // As the CLI's bundles: import.meta.url (a lazy require of a built-in module) is the bundle's own URL.
    banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { 'import.meta.url': '__bundleUrl' },
    legalComments: 'inline',
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}

// The completion scripts under completions/ and docs/commands.md, made from the command table
// (src/commands/table.ts) by scripts/reference/generate.ts, bundled to a scratch file and run;
// they are committed, and test/unit/cli-table.test.ts fails when they differ from the table.
async function generateFromTable() {
  const scratch = mkdtempSync(join(tmpdir(), 'school-reference-'));
  const entry = join(scratch, 'generate.mjs');
  await build({
    stdin: { contents: "import { writeGenerated } from './scripts/reference/generate.ts'; writeGenerated(process.argv[2]);", resolveDir: here('..'), loader: 'ts' },
    outfile: entry,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const ran = spawnSync(process.execPath, [entry, here('..')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  rmSync(scratch, { recursive: true, force: true });
  if (ran.status !== 0) {
    console.error(`build: writing the completion scripts and docs/commands.md from the table failed:\n${ran.stderr}`);
    process.exit(1);
  }
}

rmSync(here('../dist'), { recursive: true, force: true });
await generateFromTable();
await bundleOAuth();
await bundleValidator();
await bundleMcp();
await bundle({});
await bundleLibrary();
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
// The CLI's source is read at every start: all ASCII, it is a one-byte string, half the memory and
// faster to read and compile than the two-byte string a single other character makes of it all.
// esbuild escapes other characters in strings, not in regular expressions: write those as \u escapes.
const nonAscii = [...readFileSync(outfile)].findIndex((byte) => byte > 0x7f);
if (nonAscii >= 0) {
  const around = readFileSync(outfile)
    .subarray(Math.max(0, nonAscii - 40), nonAscii + 10)
    .toString('utf8');
  console.error(`build: dist/cli.cjs holds a character outside ASCII, near: ${JSON.stringify(around)}; write it as a \\u escape in the source.`);
  process.exit(1);
}
const imports = readFileSync(outfile, 'utf8').match(/\bimport\(/g) ?? [];
if (imports.length !== 1) {
  console.error(`build: dist/cli.cjs has ${imports.length} import() calls, not only importPackage's; load packages with importPackage and built-in modules with requireCommonJs.`);
  process.exit(1);
}

// The V8 code caches of the final dist/cli.cjs and dist/library.cjs, each made by one run in a
// scratch configuration (see scripts/code-cache.cjs): `school token` with nothing configured, a
// script opening a stored profile's session and reading its cached token, and `school api` on a
// small description (dist/cli.cjs.api.v8-cache); then dist/mcp.cjs's
// (scripts/mcp-code-cache.cjs).
// A Node that cannot use them (bin/school.cjs then requires the bundles plainly) gets none.
if (process.features.require_module) {
  const runs = [
    { args: ['cli', 'token'], ok: (r) => r.status === 4 && r.stderr.includes('Not logged in'), what: '`school token`' },
    { args: ['library'], ok: (r) => r.status === 0 && r.stdout === 'a session opened\n', what: 'openSession() and token()' },
    {
      args: ['cli-api'],
      // The dry run printed twice: once from the description read and indexed, once from the cache.
      ok: (r) => r.status === 0 && r.stdout.split('POST https://school.example/courses/c1/lessons\n').length === 3,
      what: '`school api create-lesson --dry-run`',
    },
  ];
  for (const run of runs) {
    const scratch = mkdtempSync(join(tmpdir(), 'school-build-'));
    const trainingEnv = { PATH: process.env.PATH, HOME: scratch, SCHOOL_CONFIG_DIR: join(scratch, 'config'), NO_COLOR: '1' };
    const trained = spawnSync(process.execPath, [here('./code-cache.cjs'), ...run.args], {
      env: trainingEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    rmSync(scratch, { recursive: true, force: true });
    if (!run.ok(trained)) {
      console.error(`build: making the code cache, ${run.what} in a scratch configuration exited ${trained.status}: ${trained.stdout.trim()} ${trained.stderr.trim()}`);
      process.exit(1);
    }
  }
  // The code cache of dist/mcp.cjs, taken after a server answered initialize and tools/list.
  const mcpTrained = spawnSync(process.execPath, [here('./mcp-code-cache.cjs')], { env: { PATH: process.env.PATH, NO_COLOR: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (mcpTrained.status !== 0) {
    console.error(`build: making the code cache of dist/mcp.cjs failed (exit ${mcpTrained.status}): ${mcpTrained.stderr.trim()}`);
    process.exit(1);
  }
}
