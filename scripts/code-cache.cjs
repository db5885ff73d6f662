// Makes the V8 code cache of a bundle, `<bundle>.v8-cache`, that bin/school.cjs compiles it with.
// Run by scripts/build.mjs in a scratch HOME and configuration directory, and the cache is taken
// at exit, so it holds every function the run compiled:
//   node scripts/code-cache.cjs cli token   the CLI runs `school token` as a user would (not logged in: exit 4),
//                                           the start-up path of `school token` and the other commands among them;
//   node scripts/code-cache.cjs cli-api     the CLI runs `school api <operation> --dry-run` on a small
//                                           description named by --description (nothing cached: read,
//                                           indexed, cached), then the same line again (read from the
//                                           cache): `school api`'s own cache, <bundle>.api.v8-cache;
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
process.once('exit', () => writeFileSync(codeCacheOf(bundle, which === 'cli-api' ? 'api' : undefined), script.createCachedData()));
if (which === 'library') {
  storeProfile(process.env.SCHOOL_CONFIG_DIR);
  runCompiled(bundle, script)
    .openSession()
    .then((session) => session.token())
    .then(
      (token) => process.stdout.write(token === TRAINING_TOKEN ? 'a session opened\n' : 'another token\n'),
      (err) => process.stdout.write(`${err.code}\n`),
    );
} else if (which === 'cli-api') {
  const { join } = require('node:path');
  const file = join(process.env.HOME, 'training-description.json');
  writeFileSync(file, JSON.stringify(trainingDescription()));
  const line = ['api', '--base-url', 'https://school.example', 'create-lesson', 'c1', '--title', 'Algebra', '--tag', 'a', '--dry-run'];
  process.argv.splice(2, process.argv.length, ...line.slice(0, 3), '--description', file, ...line.slice(3));
  const cli = runCompiled(bundle, script);
  // The second run once the first is done: the description read back from the cache.
  let again = true;
  process.on('beforeExit', () => {
    if (!again || process.exitCode) return;
    again = false;
    cli.main(line).then((code) => {
      process.exitCode = code;
    });
  });
} else {
  process.argv.splice(2, process.argv.length, ...args);
  runCompiled(bundle, script);
}

/** A description using what most do: a shared path parameter, a query parameter, a JSON body by reference, a paged list. */
function trainingDescription() {
  const lesson = { $ref: '#/components/schemas/Lesson' };
  const json = (schema) => ({ 'application/json': { schema } });
  return {
    openapi: '3.0.3',
    info: { title: 'Training', version: '1' },
    paths: {
      '/courses/{course}/lessons': {
        parameters: [{ $ref: '#/components/parameters/course' }],
        get: {
          operationId: 'listLessons',
          tags: ['lessons'],
          parameters: [{ name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } }],
          responses: { 200: { description: 'The lessons', headers: { Link: { schema: { type: 'string' } } }, content: json({ type: 'array', items: lesson }) } },
        },
        post: {
          operationId: 'createLesson',
          tags: ['lessons'],
          requestBody: { required: true, content: json(lesson) },
          responses: { 201: { description: 'The lesson', content: json(lesson) } },
        },
      },
    },
    components: {
      parameters: { course: { name: 'course', in: 'path', required: true, schema: { type: 'string' } } },
      schemas: {
        Lesson: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string', maxLength: 100 }, tag: { type: 'array', items: { type: 'string' } }, starts: { type: 'string', format: 'date-time' } },
        },
      },
    },
  };
}
