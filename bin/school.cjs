#!/usr/bin/env node
// CommonJS on purpose: starting without the ES module loader keeps `school token` fast.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { dirname, join } = require('node:path');

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
// The V8 code cache the build made of dist/cli.cjs (scripts/build.mjs, scripts/code-cache.cjs).
const CODE_CACHE = `${CLI}.v8-cache`;

/**
 * Compiles dist/cli.cjs as require() would (in Node's module wrapper), with the build's code
 * cache when there is one: compiling the CLI is a tenth of the start-up of `school token`, and
 * the cache spares most of it. V8 ignores a cache made by another Node version or under other
 * flags, and then compiles as usual. A script compiled so has no import(): the CLI loads its
 * ES module packages with require() (src/util/require.ts), hence this only where Node can.
 */
function compileCli(source, cachedData) {
  return new (require('node:vm').Script)(require('node:module').wrap(source), { filename: CLI, cachedData });
}

/** Runs the compiled CLI as the module dist/cli.cjs, with a require() that resolves from there. */
function runCompiled(script) {
  const Module = require('node:module');
  const cli = new Module(CLI, module);
  cli.filename = CLI;
  script.runInThisContext().call(cli.exports, cli.exports, Module.createRequire(CLI), cli, CLI, dirname(CLI));
}

function main() {
  let source;
  try {
    source = readFileSync(CLI, 'utf8');
  } catch (err) {
    // An install from a source checkout whose build never ran (npm skips `prepare` in some git installs).
    if (err && err.code === 'ENOENT') {
      process.stderr.write(
        `school: this installation has no build (${dirname(CLI)} is missing); ` +
          "run 'npm run build' there, or install from a packed tarball (see the README's Install section).\n",
      );
      process.exitCode = 1;
      return;
    }
    throw err;
  }
  // A Node that cannot require() an ES module (before 20.19) runs the CLI as a plain file.
  if (!process.features.require_module) {
    require(CLI);
    return;
  }
  let cachedData;
  try {
    // V8 checks a cache against the length of the source only: a bundle changed after the build
    // (patched by hand, copied over) is newer than the cache, which then goes unused.
    if (statSync(CODE_CACHE).mtimeMs >= statSync(CLI).mtimeMs) cachedData = readFileSync(CODE_CACHE);
  } catch {
    // No cache (a build that could not make one): compiled without it.
  }
  runCompiled(compileCli(source, cachedData));
}

if (require.main === module) main();
else module.exports = { CLI, CODE_CACHE, compileCli, runCompiled };
