// The one classifier of the API's answers: what a 401 or a 403 asks of the person, and the
// `school login …` command that gives it, for `call`, `school api`, `school mcp` and the library.
import { describe, expect, it } from 'vitest';
import { classifyAnswer, problemError, readAnswer } from '../../src/session/answer-problem.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const BASE = 'https://school.example';
const answer = (status: number, challenge?: string) => ({ status, headers: challenge ? { 'www-authenticate': challenge } : {} });
const profileSession = (profile: string) => ({ profile, source: 'keychain' as const });
const envSession = { profile: 'default', source: 'env' as const };

describe('classifyAnswer', () => {
  it('names no problem in an answer that states none', () => {
    for (const status of [200, 204, 404, 500]) expect(classifyAnswer(answer(status, 'Bearer error="invalid_token"'), { session: profileSession('work') })).toBeUndefined();
    // Sent without a token, a 401 without a challenge is a plain failure: nothing says a login helps.
    expect(classifyAnswer(answer(401), { login: { profile: 'default', baseUrl: BASE } })).toBeUndefined();
    // A challenge to a request for another origin than the profile's names no login there.
    expect(classifyAnswer(answer(401, 'Bearer'), {})).toBeUndefined();
    expect(classifyAnswer(answer(403, 'Bearer error="invalid_request"'), { session: profileSession('work') })).toBeUndefined();
  });

  it('a challenge to a request without a token: the login of the profile and server, with the scope asked for, and the challenge to remember', () => {
    const problem = classifyAnswer(answer(401, 'Bearer resource_metadata="https://school.example/meta.json", scope="courses:write"'), {
      login: { profile: 'work', baseUrl: BASE },
    });
    expect(problem).toMatchObject({
      kind: 'login_needed',
      code: 'auth_required',
      exitCode: 4,
      scopes: ['courses:write'],
      command: `school login --base-url ${BASE} --profile work --add-scope courses:write`,
      challenge: { resourceMetadata: 'https://school.example/meta.json', scope: ['courses:write'] },
    });
  });

  it('a rejected token: the login of the same profile (never a plain `school login`), or the environment to check', () => {
    const rejected = classifyAnswer(answer(401, 'Bearer error="invalid_token"'), { session: profileSession('work'), login: { profile: 'work', baseUrl: BASE } });
    expect(rejected).toMatchObject({ kind: 'token_rejected', reason: 'the server rejected the token (invalid_token)', command: `school login --base-url ${BASE} --profile work` });
    const fromEnv = classifyAnswer(answer(401, 'Bearer error="invalid_token"'), { session: envSession, login: { profile: 'default', baseUrl: BASE } });
    expect(fromEnv?.command).toBeUndefined();
    expect(fromEnv?.hint).toBe('Check the token in the environment.');
  });

  it('a missing scope: the step-up of the profile, only plain names, and a placeholder where the server named none', () => {
    const scoped = classifyAnswer(answer(403, 'Bearer error="insufficient_scope", scope="courses:write $(rm -rf ~)"'), { session: profileSession('night') });
    expect(scoped).toMatchObject({ kind: 'insufficient_scope', scopes: ['courses:write'], command: 'school login --profile night --add-scope courses:write' });
    const unnamed = classifyAnswer(answer(403, 'Bearer error="insufficient_scope"'), { session: profileSession('night') });
    expect(unnamed?.command).toBeUndefined();
    expect(unnamed?.hint).toBe('Find the scope in `school call --list`, then add it:\nschool login --profile night --add-scope <scope>');
    const env = classifyAnswer(answer(403, 'DPoP error="insufficient_scope", scope="a:b"'), { session: envSession });
    expect(env?.command).toBeUndefined();
    expect(env?.hint).toBe('Use a token that has the scope a:b.');
  });

  it('reads the platform Response of the library as the HTTP client answer of the CLI', () => {
    const res = new Response(null, { status: 403, headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="x:y"' } });
    expect(classifyAnswer(res, {})?.scopes).toEqual(['x:y']);
  });

  it('quotes for the shell every value of the command it names', () => {
    const problem = classifyAnswer(answer(401, 'Bearer'), { login: { profile: 'my work', baseUrl: "https://s.example/it's" } });
    expect(problem?.command).toBe(`school login --base-url 'https://s.example/it'\\''s' --profile 'my work'`);
  });

  it('becomes the error a command exits 4 with, the command as data beside the hint', () => {
    const problem = classifyAnswer(answer(401, 'Bearer scope="a:b"'), { login: { profile: 'default', baseUrl: BASE } });
    if (!problem) throw new Error('no problem');
    const err = problemError('HTTP 401 (POST /api/x)', problem);
    expect(err).toMatchObject({ exitCode: 4, code: 'auth_required', scope: 'a:b', command: `school login --base-url ${BASE} --add-scope a:b` });
    expect(err.message).toBe('HTTP 401 (POST /api/x): the server asks for a login with the scope a:b.');
  });
});

describe('a challenge remembered for the login it names', () => {
  it('is saved for the base URL the request was for, and read back while fresh', async () => {
    const deps = fakeDeps();
    await readAnswer(deps, answer(401, 'Bearer resource_metadata="https://school.example/meta.json", scope="courses:write"'), { login: { profile: 'default', baseUrl: BASE } });
    const now = Math.floor(deps.clock.now() / 1000);
    expect(await deps.state.seenChallenge(BASE, now)).toEqual({ resourceMetadata: 'https://school.example/meta.json', scope: ['courses:write'] });
    expect(await deps.state.seenChallenge('https://other.example', now)).toBeUndefined();
    expect(await deps.state.seenChallenge(BASE, now + 2 * 24 * 3600)).toBeUndefined();
  });

  it('is not saved for an answer without a challenge, nor for a request elsewhere', async () => {
    const deps = fakeDeps();
    await readAnswer(deps, answer(401), { login: { profile: 'default', baseUrl: BASE } });
    await readAnswer(deps, answer(401, 'Bearer resource_metadata="https://evil.example/m"'), {});
    expect(await deps.state.seenChallenge(BASE, Math.floor(deps.clock.now() / 1000))).toBeUndefined();
  });
});
