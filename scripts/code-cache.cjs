// Makes the V8 code cache of a bundle, `<bundle>.v8-cache`, that bin/school.cjs compiles it with.
// Run by scripts/build.mjs with a configuration directory that holds nothing, and the cache is
// taken at exit, so it holds every function the run compiled:
//   node scripts/code-cache.cjs cli token   the CLI runs `school token` as a user would (not logged in: exit 4),
//                                           the start-up path of `school token` and the other commands among them;
//   node scripts/code-cache.cjs library     a script opens a session with the library (not logged in: it says so).
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { CLI, LIBRARY, codeCacheOf, compileBundle, runCompiled } = require('../bin/school.cjs');

const [which, ...args] = process.argv.slice(2);
const bundle = which === 'library' ? LIBRARY : CLI;
const script = compileBundle(bundle, readFileSync(bundle, 'utf8'));
process.once('exit', () => writeFileSync(codeCacheOf(bundle), script.createCachedData()));
if (which === 'library') {
  runCompiled(bundle, script)
    .openSession()
    .then(
      () => process.stdout.write('a session opened\n'),
      (err) => process.stdout.write(`${err.code}\n`),
    );
} else {
  process.argv.splice(2, process.argv.length, ...args);
  runCompiled(bundle, script);
}
