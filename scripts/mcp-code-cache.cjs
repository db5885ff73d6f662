// Makes dist/mcp.cjs.v8-cache, the V8 code cache `school mcp` compiles its server bundle with.
// Run by scripts/build.mjs: compiles dist/mcp.cjs as bin/school.cjs does for `school mcp`, runs
// a server on in-memory streams with an engine that knows a two-operation API and no login,
// has it answer initialize, tools/list and one tool call, and takes the cache at exit, so it
// holds the functions a host's first exchange runs.
'use strict';
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { PassThrough } = require('node:stream');
const { MCP: BUNDLE, codeCacheOf, compileBundle, runCompiled } = require('../bin/school.cjs');
const script = compileBundle(BUNDLE, readFileSync(BUNDLE, 'utf8'));
const mod = { exports: runCompiled(BUNDLE, script) };

const scratch = mkdtempSync(join(tmpdir(), 'school-mcp-cache-'));
const doc = {
  paths: {
    '/api/courses': { get: { operationId: 'listCourses', summary: 'List courses', security: [{ oauth2: ['courses:read'] }] } },
    '/api/courses/{id}': { get: { operationId: 'getCourse', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] } },
  },
};
const problem = { ok: false, problem: { kind: 'not_logged_in', message: 'Not logged in.', command: 'school login', canLogIn: false } };
const engine = {
  profile: 'default',
  auditFile: join(scratch, 'audit.jsonl'),
  baseUrl: () => 'http://127.0.0.1:9',
  cachedApiDescription: async () => doc,
  fetchApiDescription: async () => doc,
  send: async () => problem,
  whoami: async () => problem,
  startLogin: async () => {
    throw new Error('no login here');
  },
  waitForLogin: async () => ({ status: 'failed', message: 'none' }),
  startupNote: async () => undefined,
  redact: (text) => text,
  describeError: (err) => String(err),
};

const stdin = new PassThrough();
const stdout = new PassThrough();
let answers = 0;
stdout.setEncoding('utf8');
stdout.on('data', (chunk) => {
  answers += chunk.split('\n').filter((line) => line.includes('"id":')).length;
  if (answers >= 3) stdin.end();
});
const send = (message) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const done = mod.exports.serveMcp(engine, { allowWrite: false, version: '0', stdin, stdout, notice: () => undefined });
send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'build', version: '0' } } });
send({ method: 'notifications/initialized' });
send({ id: 2, method: 'tools/list' });
send({ id: 3, method: 'tools/call', params: { name: 'listCourses', arguments: {} } });
const timer = setTimeout(() => {
  process.stderr.write('the server did not answer in time\n');
  process.exit(1);
}, 20_000);
done.then(
  () => {
    clearTimeout(timer);
    writeFileSync(codeCacheOf(BUNDLE), script.createCachedData());
    rmSync(scratch, { recursive: true, force: true });
  },
  (err) => {
    process.stderr.write(`${err?.stack}\n`);
    process.exit(1);
  },
);
