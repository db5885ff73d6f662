#!/usr/bin/env node
// CommonJS on purpose: starting without the ES module loader keeps `school token` fast.
require('../dist/cli.cjs');
