#!/usr/bin/env node
// CommonJS on purpose: starting without the ES module loader keeps `school token` fast.
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { dirname, join } = require('node:path');

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const LIBRARY = join(__dirname, '..', 'dist', 'library.cjs');
const MCP = join(__dirname, '..', 'dist', 'mcp.cjs');

/**
 * The V8 code cache the build made of a bundle (scripts/build.mjs, scripts/code-cache.cjs). The
 * CLI has two: one of the start-up every command shares (trained on `school token`), and one of
 * `school api` (trained on reading a description and building a request), which compiles several
 * times as many functions; one cache of both would make every other command read the larger one.
 */
function codeCacheOf(bundle, flavour) {
  return flavour ? `${bundle}.${flavour}.v8-cache` : `${bundle}.v8-cache`;
}

/**
 * Compiles a bundle of dist/ as require() would (in Node's module wrapper), with the build's code
 * cache when there is one: compiling is a tenth of the start-up of `school token`, and the cache
 * spares most of it. V8 ignores a cache made by another Node version or under other flags, and
 * then compiles as usual. A script compiled so has no import(): the bundles load their ES module
 * packages with require() (src/util/require.ts), hence this only where Node can.
 */
function compileBundle(bundle, source, cachedData) {
  return new (require('node:vm').Script)(require('node:module').wrap(source), { filename: bundle, cachedData });
}

/** Runs a compiled bundle as the module it is, with a require() that resolves from there; its exports. */
function runCompiled(bundle, script) {
  const Module = require('node:module');
  const loaded = new Module(bundle, module);
  loaded.filename = bundle;
  script.runInThisContext().call(loaded.exports, loaded.exports, Module.createRequire(bundle), loaded, bundle, dirname(bundle));
  return loaded.exports;
}

/** The bundle's code cache, unless the bundle is newer (V8 checks a cache against the source's length only). */
function freshCodeCache(bundle, cache = codeCacheOf(bundle)) {
  try {
    if (statSync(cache).mtimeMs >= statSync(bundle).mtimeMs) return readFileSync(cache);
  } catch {
    // No cache (a build that could not make one): compiled without it.
  }
  return undefined;
}

/** Loads a bundle of dist/ from its code cache where Node can; a Node that cannot require() an ES module (before 20.19) requires it plainly. */
function loadBundle(bundle, source = readFileSync(bundle, 'utf8'), cache = codeCacheOf(bundle)) {
  if (!process.features.require_module) return require(bundle);
  // Without the cache asked for (a build that made only the shared one), the shared one.
  return runCompiled(bundle, compileBundle(bundle, source, freshCodeCache(bundle, cache) ?? freshCodeCache(bundle)));
}

function main() {
  let source;
  try {
    source = readFileSync(CLI, 'utf8');
  } catch (err) {
    // An install from a source checkout whose build never ran (npm skips `prepare` in some git installs).
    if (err && err.code === 'ENOENT') {
      process.stderr.write(`school: this installation has no build (${dirname(CLI)} is missing); run 'npm run build' there, or install from a packed tarball (see the README's Install section).\n`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
  // A word `api` anywhere on the line picks the cache of `school api`: a wrong guess costs only time.
  loadBundle(CLI, source, process.argv.includes('api') ? codeCacheOf(CLI, 'api') : codeCacheOf(CLI));
}

// Set before main() runs: `school mcp` loads its server bundle through this same module.
module.exports = { CLI, LIBRARY, MCP, codeCacheOf, compileBundle, runCompiled, loadBundle };
if (require.main === module) main();
