import { describe, expect, it } from 'vitest';
import { callCommand } from '../../src/commands/call/call.js';
import { mcpCommand } from '../../src/commands/mcp/mcp.js';
import { tokenCommand } from '../../src/commands/token/token.js';
import { whoamiCommand } from '../../src/commands/whoami/whoami.js';
import { closestProfiles, likelyBaseUrl, resolveTarget } from '../../src/session/target.js';
import type { Profile } from '../../src/types/profile.js';
import { API, AS, fakeAuthServer } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const stored: Profile = { baseUrl: API, issuer: AS, clientId: 'cid-1', authMethod: 'none', storage: 'keychain' };

async function withProfiles(names: string[], env: Record<string, string> = {}) {
  const deps = fakeDeps({ http: fakeAuthServer(), env });
  for (const name of names) await deps.state.saveProfile(name, stored);
  return deps;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('--profile naming no stored profile', () => {
  it.each([
    ['call', () => callCommand, ['/api/courses']],
    ['token', () => tokenCommand, []],
    ['whoami', () => whoamiCommand, []],
  ] as const)('is an error for %s: exit 4, with the stored profiles it may have meant', async (_name, command, args) => {
    const deps = await withProfiles(['default', 'work', 'night']);
    const err = await failure(command().execute(() => deps, { profile: 'wrok' }, [...args]));
    expect(err).toMatchObject({ code: 'not_logged_in', exitCode: 4, message: expect.stringMatching(/^There is no profile "wrok"\. Did you mean "work"\?/) });
    // The server of the profile it most likely meant, never the example placeholder.
    expect((err as { hint: string }).hint).toBe(`school login --base-url ${API} --profile wrok`);
    expect(deps.io.stdout()).toBe('');
  });

  it('is no error for mcp: the server starts, and its instructions and results say there is no such profile yet, and the near one', async () => {
    const deps = await withProfiles(['default', 'work', 'night']);
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'host', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'school_whoami', arguments: {} } },
    ];
    const served = mcpCommand.execute(() => deps, { profile: 'wrok' }, []);
    deps.io.write(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    for (let i = 0; i < 200 && !deps.io.stdout().includes('"id":2'); i++) await new Promise((r) => setTimeout(r, 10));
    deps.io.endInput();
    await served;
    const [init, call] = deps.io
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { result: { instructions?: string; isError?: boolean; content?: Array<{ text: string }> } });
    expect(init.result.instructions).toContain('There is no profile "wrok" yet (did you mean "work"?)');
    expect(call.result.isError).toBe(true);
    expect(call.result.content?.[0].text).toContain('There is no profile "wrok" yet (did you mean "work"?)');
    expect(call.result.content?.[0].text).toContain('`school login --profile wrok --base-url` followed by the school');
    expect(deps.io.stderr()).toBe('');
  });

  it('names every profile where none is close, and says so where there are none', async () => {
    const some = await withProfiles(['alpha', 'beta']);
    expect(await failure(tokenCommand.execute(() => some, { profile: 'nightly-build' }, []))).toMatchObject({ message: expect.stringContaining('The profiles are "alpha", "beta".') });
    const none = await withProfiles([]);
    expect(await failure(tokenCommand.execute(() => none, { profile: 'work', baseUrl: API }, []))).toMatchObject({
      message: expect.stringContaining('There is no profile "work": there are no profiles yet.'),
      hint: `school login --base-url ${API} --profile work`,
    });
  });

  it('counts SCHOOL_PROFILE as naming one', async () => {
    const deps = await withProfiles(['default'], { SCHOOL_PROFILE: 'defualt' });
    expect(await failure(whoamiCommand.execute(() => deps, {}, []))).toMatchObject({ code: 'not_logged_in', message: expect.stringContaining('Did you mean "default"?') });
  });

  it('is no error with --anonymous, with SCHOOL_TOKEN or a CI seed, for the default profile, nor for a profile logged out (its base URL remembered)', async () => {
    const deps = await withProfiles(['default']);
    const state = deps.state;
    await expect(resolveTarget(state, { profile: 'nobody', anonymous: true, profileMustExist: true, env: {} })).resolves.toMatchObject({ source: 'none' });
    await expect(resolveTarget(state, { profile: 'nobody', profileMustExist: true, env: { SCHOOL_TOKEN: 't-0123456789' } })).resolves.toMatchObject({ source: 'env_token' });
    await expect(resolveTarget(state, { profile: 'ci-nightly', profileMustExist: true, env: { SCHOOL_REFRESH_TOKEN: 'r', SCHOOL_CLIENT_ID: 'c' } })).resolves.toMatchObject({ source: 'headless' });
    const empty = await withProfiles([]);
    await expect(resolveTarget(empty.state, { profileMustExist: true, env: {} })).resolves.toMatchObject({ profile: 'default', source: 'none' });
    await deps.state.saveProfile('gone', stored);
    await deps.state.removeProfile('gone');
    await expect(resolveTarget(state, { profile: 'gone', profileMustExist: true, env: {} })).resolves.toMatchObject({ profile: 'gone', source: 'none', baseUrl: API });
    // Without the demand (login, logout), a new name is simply new.
    await expect(resolveTarget(state, { profile: 'new', env: {} })).resolves.toMatchObject({ profile: 'new', source: 'none' });
  });

  it('suggests by edit distance, closest first', () => {
    expect(closestProfiles('wrk', ['default', 'work', 'wrok', 'word'])).toEqual(['work', 'wrok', 'word']);
    expect(closestProfiles('zzz', ['default', 'work'])).toEqual([]);
  });
});

describe('the server a login to an unknown profile is offered', () => {
  const at = (baseUrl: string) => ({ baseUrl });
  it("is the closest profile's, else the default's, else the one all share, else none", () => {
    const stored = { work: at('https://work.example'), default: at('https://home.example') };
    expect(likelyBaseUrl(['work'], stored)).toBe('https://work.example');
    expect(likelyBaseUrl([], stored)).toBe('https://home.example');
    expect(likelyBaseUrl([], { a: at('https://one.example'), b: at('https://one.example') })).toBe('https://one.example');
    expect(likelyBaseUrl([], { a: at('https://one.example'), b: at('https://two.example') })).toBeUndefined();
    expect(likelyBaseUrl([], {})).toBeUndefined();
  });
});

describe('a hint for a profile without a server', () => {
  it('names the likely server instead of the example: a login to a new profile, and a default profile never logged in', async () => {
    const deps = await withProfiles(['work']);
    const { loginCommand } = await import('../../src/commands/login/login.js');
    const login = await failure(loginCommand.execute(() => deps, { profile: 'wrok' }, []));
    expect(login).toMatchObject({ code: 'usage', command: `school login --base-url ${API} --profile wrok` });
    const call = await failure(callCommand.execute(() => deps, {}, ['/api/courses']));
    expect(call).toMatchObject({ code: 'usage', command: `school login --base-url ${API}` });
    const whoami = await failure(whoamiCommand.execute(() => deps, {}, []));
    expect(whoami).toMatchObject({ code: 'not_logged_in', command: `school login --base-url ${API}` });
  });

  it('offers no profile’s server to a CI seed, which belongs to the server the job names', async () => {
    const deps = await withProfiles(['work']);
    const target = await resolveTarget(deps.state, { env: { SCHOOL_REFRESH_TOKEN: 'r', SCHOOL_CLIENT_ID: 'c' } });
    expect(target.suggestedBaseUrl).toBeUndefined();
    expect((await resolveTarget(deps.state, { env: {} })).suggestedBaseUrl).toBe(API);
  });
});
