// The front-ends present what the one classifier of answers says (session/answer-problem.ts):
// `school mcp`'s engine, the runner of `call` and `school api`, and the library read no 401 or 403 themselves,
// and the challenge they met is remembered for the login it names.
import { describe, expect, it } from 'vitest';
import type { HttpClient, HttpRequest } from '../../src/http/client.js';
import { callCommand } from '../../src/commands/call/call.js';
import { openSessionWith } from '../../src/library/open-session.js';
import { createEngine } from '../../src/mcp/engine.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const BASE = 'https://api.school.example';

/** An API that answers every request with this status and challenge. */
function answering(status: number, challenge: string): HttpClient {
  return {
    async request(req: HttpRequest) {
      const url = String(req.url);
      return { status, statusText: '', headers: { 'content-type': 'application/json', 'www-authenticate': challenge }, rawHeaders: [], body: Buffer.from('{}'), url, httpVersion: '1.1' };
    },
  };
}

describe("the MCP engine's answers", () => {
  it('a missing scope: the problem the classifier names, with its scopes', async () => {
    const deps = fakeDeps({ env: { SCHOOL_TOKEN: 'token-from-the-environment', SCHOOL_BASE_URL: BASE }, http: answering(403, 'Bearer error="insufficient_scope", scope="courses:write"') });
    const engine = createEngine(deps, { env: deps.env });
    const outcome = await engine.send({ method: 'POST', target: '/api/courses', body: Buffer.from('{}'), contentType: 'application/json' });
    expect(outcome).toMatchObject({ ok: false, problem: { kind: 'insufficient_scope', scopes: ['courses:write'], canLogIn: false } });
    // A token from the environment is no login to run: no command, the token to change.
    expect(outcome.ok === false && outcome.problem.command).toBeUndefined();
  });

  it('a rejected token: the classifier’s problem, and the challenge remembered for the base URL', async () => {
    const challenge = `Bearer error="invalid_token", resource_metadata="${BASE}/meta.json", scope="courses:read"`;
    const deps = fakeDeps({ env: { SCHOOL_TOKEN: 'token-from-the-environment', SCHOOL_BASE_URL: BASE }, http: answering(401, challenge) });
    const engine = createEngine(deps, { env: deps.env });
    const outcome = await engine.send({ method: 'GET', target: '/api/courses' });
    expect(outcome).toMatchObject({ ok: false, problem: { kind: 'token_rejected', message: 'The server rejected the token (invalid_token).', canLogIn: false } });
    expect(await deps.state.seenChallenge(BASE, Math.floor(deps.clock.now() / 1000))).toEqual({ resourceMetadata: `${BASE}/meta.json`, scope: ['courses:read'] });
  });
});

describe("the runner's answers (call, school api)", () => {
  it('a write challenged without a login: exit 4 naming the login with its scope, and the challenge remembered for it', async () => {
    const challenge = `Bearer resource_metadata="${BASE}/meta.json", scope="courses:write"`;
    const deps = fakeDeps({ http: answering(401, challenge) });
    const err = await callCommand.execute(() => deps, { baseUrl: BASE, method: 'POST', rawField: ['title=Algebra'] }, ['/api/courses']).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 4, code: 'auth_required', command: `school login --base-url ${BASE} --add-scope courses:write` });
    expect(await deps.state.seenChallenge(BASE, Math.floor(deps.clock.now() / 1000))).toEqual({ resourceMetadata: `${BASE}/meta.json`, scope: ['courses:write'] });
  });
});

describe("the library's answers", () => {
  it('session.fetch hands the answer back as it came, and remembers its challenge for the login it calls for', async () => {
    const challenge = `Bearer resource_metadata="${BASE}/meta.json", scope="courses:write"`;
    const deps = fakeDeps({ http: answering(401, challenge) });
    const session = await openSessionWith(deps, { baseUrl: BASE, anonymous: true });
    const res = await session.fetch('/api/courses', { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(await deps.state.seenChallenge(BASE, Math.floor(deps.clock.now() / 1000))).toEqual({ resourceMetadata: `${BASE}/meta.json`, scope: ['courses:write'] });
  });
});
