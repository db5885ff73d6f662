// Makes dist/cli.cjs.v8-cache, the V8 code cache bin/school.cjs compiles the CLI with. Run by
// scripts/build.mjs as `node scripts/code-cache.cjs token`, with a configuration directory that
// holds nothing: the CLI runs that command as a user would (here: not logged in, exit 4), and
// the cache is taken at exit, so it holds every function the run compiled, the start-up path
// of `school token` and of the other commands among them.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { CLI, CODE_CACHE, compileCli, runCompiled } = require('../bin/school.cjs');

const script = compileCli(readFileSync(CLI, 'utf8'));
process.once('exit', () => writeFileSync(CODE_CACHE, script.createCachedData()));
runCompiled(script);
