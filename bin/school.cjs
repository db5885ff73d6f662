#!/usr/bin/env node
// CommonJS on purpose: starting without the ES module loader keeps `school token` fast.
try {
  require('../dist/cli.cjs');
} catch (err) {
  // An install from a source checkout whose build never ran (npm skips `prepare` in some git installs).
  if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('dist/cli.cjs')) {
    process.stderr.write(
      `school: this installation has no build (${require('node:path').resolve(__dirname, '..', 'dist')} is missing); ` +
        "run 'npm run build' there, or install from a packed tarball (see the README's Install section).\n",
    );
    process.exitCode = 1;
  } else {
    throw err;
  }
}
