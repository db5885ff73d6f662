import { describe, expect, it } from 'vitest';
import { whoamiCommand } from '../../src/commands/whoami/whoami.js';
import { completeLogin, prepareLogin } from '../../src/login/transaction.js';
import { AS, API, fakeAuthServer } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const request = { profile: 'default', baseUrl: API, timeoutSeconds: 300, confidential: false, insecureStorage: false };

/** Logs in against the fake server shaped as asked, then runs `whoami` (with --json when asked). */
async function whoami(shape: { userinfo: boolean; idToken: boolean; introspection: boolean }, json = false, flags: Record<string, unknown> = {}) {
  const server = fakeAuthServer();
  if (!shape.userinfo) delete server.metadata.userinfo_endpoint;
  if (!shape.introspection) delete server.metadata.introspection_endpoint;
  if (shape.idToken) server.idTokenSubject = 'u-ada';
  const deps = fakeDeps({ http: server, now: 1_800_000_000_000 });
  const pending = await prepareLogin(deps, request, { notify: () => undefined, listen: async () => ({ redirectUri: 'http://127.0.0.1:5555/callback' }) });
  server.idTokenNonce = new URL(pending.authorizationUrl).searchParams.get('nonce') ?? undefined;
  const redirect = new URL(`${pending.redirectUri}?${new URLSearchParams({ code: 'code-0123456789', state: pending.state, iss: AS })}`);
  await completeLogin(deps, pending, redirect);
  await whoamiCommand.execute(() => deps, { ...flags, ...(json ? { json: true } : {}) }, []);
  return { stdout: deps.io.stdout(), stderr: deps.io.stderr() };
}

describe('whoami: where the identity comes from', () => {
  it.each([
    { name: 'the userinfo endpoint (said with --verbose only)', shape: { userinfo: true, idToken: true, introspection: true }, user: 'Ada Lovelace ada@example.edu\n', note: /^$/ },
    { name: 'the ID token, without userinfo', shape: { userinfo: false, idToken: true, introspection: true }, user: 'Ada (from the ID token)\n', note: /ID token/ },
    { name: 'introspection, without userinfo or ID token', shape: { userinfo: false, idToken: false, introspection: true }, user: 'ada (u-ada)\n', note: /introspection/ },
  ])('$name', async ({ shape, user, note }) => {
    const text = await whoami(shape);
    expect(text.stdout).toBe(user);
    expect(text.stderr).toMatch(note);
    const json = await whoami(shape, true);
    // --json is the claims object alone; where it came from is said on stderr.
    expect(JSON.parse(json.stdout)).toMatchObject({ sub: 'u-ada' });
    expect(JSON.parse(json.stdout)).not.toHaveProperty('source');
    expect(json.stderr).toMatch(note);
  });

  it('says the identity came from the userinfo endpoint with --verbose, and only then', async () => {
    const shape = { userinfo: true, idToken: true, introspection: true };
    expect((await whoami(shape, false, { verbose: true })).stderr).toContain('Identity from the userinfo endpoint.\n');
    expect((await whoami(shape)).stderr).not.toContain('Identity from');
  });

  it('says the subject is not known, and exits 0, where the server tells nothing', async () => {
    const text = await whoami({ userinfo: false, idToken: false, introspection: false });
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/subject is not known/);
    const json = await whoami({ userinfo: false, idToken: false, introspection: false }, true);
    expect(JSON.parse(json.stdout)).toEqual({});
    expect(json.stderr).toMatch(/subject is not known/);
  });
});
