// Makes the V8 code cache of a bundle, `<bundle>.v8-cache`, that bin/school.cjs compiles it with.
// Run by scripts/build.mjs in a scratch HOME and configuration directory, and the cache is taken
// at exit, so it holds every function the run compiled:
//   node scripts/code-cache.cjs cli token   the CLI runs `school token` as a user would (not logged in: exit 4),
//                                           the start-up path of `school token` and the other commands among them;
//   node scripts/code-cache.cjs library     a script opens the session of a stored profile and reads its
//                                           cached token, the path the library's users run most (a profile
//                                           and its token set, in the 0600 file store, written here first).
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { CLI, LIBRARY, codeCacheOf, compileBundle, runCompiled } = require('../bin/school.cjs');

const TRAINING_TOKEN = 'training-access-token-0123456789';

/**
 * A logged-in profile as `school login --insecure-storage` leaves one (config.json, and the token
 * set in credentials.json, both 0600 in a 0700 folder), so the library's run reads a stored
 * session. The build checks the run printed the token: a format that changed fails it.
 */
function storeProfile(configDir) {
  const { mkdirSync } = require('node:fs');
  const { join } = require('node:path');
  const baseUrl = 'https://school.example';
  const now = Math.floor(Date.now() / 1000);
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const profile = { baseUrl, issuer: baseUrl, clientId: 'training-client', authMethod: 'none', storage: 'file', loggedInAt: now };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ version: 1, profiles: { default: profile }, clients: {} }), { mode: 0o600 });
  const tokens = { issuer: baseUrl, clientId: 'training-client', accessToken: TRAINING_TOKEN, tokenType: 'bearer', obtainedAt: now, expiresAt: now + 3600 };
  const entries = { [`profile:default@${configDir}`]: JSON.stringify(tokens) };
  writeFileSync(join(configDir, 'credentials.json'), JSON.stringify({ version: 1, entries }), { mode: 0o600 });
}

const [which, ...args] = process.argv.slice(2);
const bundle = which === 'library' ? LIBRARY : CLI;
const script = compileBundle(bundle, readFileSync(bundle, 'utf8'));
process.once('exit', () => writeFileSync(codeCacheOf(bundle), script.createCachedData()));
if (which === 'library') {
  storeProfile(process.env.SCHOOL_CONFIG_DIR);
  runCompiled(bundle, script)
    .openSession()
    .then((session) => session.token())
    .then(
      (token) => process.stdout.write(token === TRAINING_TOKEN ? 'a session opened\n' : 'another token\n'),
      (err) => process.stdout.write(`${err.code}\n`),
    );
} else {
  process.argv.splice(2, process.argv.length, ...args);
  runCompiled(bundle, script);
}
