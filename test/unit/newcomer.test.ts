import { describe, expect, it } from 'vitest';
import { type LoginOptions, loginCommand, loginCommandLine } from '../../src/commands/login/login.js';
import { tokenCommand } from '../../src/commands/token/token.js';
import { listenForRedirect } from '../../src/login/loopback.js';
import { commandSpec } from '../../src/commands/table.js';
import { optionsFrom } from '../../src/commands/values.js';
import { portProblem } from '../../src/login/ports.js';
import { checkScopes } from '../../src/login/scopes.js';
import { normalizeBaseUrl } from '../../src/options.js';
import { updateConfig } from '../../src/state/config-file.js';
import { fakeDeps } from '../helpers/fake-deps.js';

/** `login --port <value>` as the table checks it, for the full parser and the fast path alike. */
const parseLoginPort = (value: string | undefined) => optionsFrom(commandSpec('login'), value === undefined ? {} : { port: value }, []).port;

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('a base URL without its scheme', () => {
  it('is refused with the http and https URLs it may mean, for a server on this machine', () => {
    expect(thrown(() => normalizeBaseUrl('localhost:8080'))).toMatchObject({
      code: 'invalid_base_url',
      exitCode: 2,
      message: 'The base URL "localhost:8080" has no scheme: did you mean http://localhost:8080 or https://localhost:8080?',
    });
    expect(thrown(() => normalizeBaseUrl('127.0.0.1:3000/school/'))).toMatchObject({ message: expect.stringContaining('http://127.0.0.1:3000/school or https://127.0.0.1:3000/school?') });
  });

  it('is refused with the https URL only for another host (plain http would carry tokens in the clear)', () => {
    const err = thrown(() => normalizeBaseUrl('school.example'));
    expect(err).toMatchObject({ code: 'invalid_base_url', exitCode: 2, message: 'The base URL "school.example" has no scheme: did you mean https://school.example?' });
  });

  it('still accepts full URLs as before', () => {
    expect(normalizeBaseUrl('https://school.example/')).toBe('https://school.example');
    expect(normalizeBaseUrl('http://localhost:8080')).toBe('http://localhost:8080');
    expect(thrown(() => normalizeBaseUrl('http://school.example'))).toMatchObject({ code: 'insecure_url', exitCode: 2 });
  });
});

describe('login --port', () => {
  // The Fetch standard's bad ports, as listed there.
  const BAD = [
    1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512,
    513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679,
    6697, 10080,
  ];

  it.each(BAD)('refuses %i, a port browsers block', (port) => {
    expect(portProblem(port)).toMatch(/browsers refuse/);
    expect(thrown(() => parseLoginPort(String(port)))).toMatchObject({ code: 'blocked_port', exitCode: 2 });
  });

  it('refuses ports below 1024 and accepts the others', () => {
    expect(thrown(() => parseLoginPort('80'))).toMatchObject({ code: 'blocked_port', message: expect.stringContaining('below 1024') });
    for (const ok of [1024, 6664, 6670, 8080, 10079, 10081, 65535]) expect(parseLoginPort(String(ok))).toBe(ok);
    expect(parseLoginPort(undefined)).toBeUndefined();
    expect(thrown(() => parseLoginPort('http'))).toMatchObject({ code: 'usage', exitCode: 2 });
  });

  it('is refused before anything is contacted or saved', async () => {
    const deps = fakeDeps({ env: { SCHOOL_BASE_URL: 'https://school.invalid' } });
    await expect(loginCommand.execute(() => deps, { port: '22' }, [])).rejects.toMatchObject({ code: 'blocked_port', message: 'Cannot use --port 22: browsers refuse to connect to port 22 (ssh).' });
    expect(await deps.state.profiles()).toEqual({});
  });

  it('is refused the same way for a two-step login, before any listener starts', async () => {
    const deps = fakeDeps({ env: { SCHOOL_BASE_URL: 'https://school.invalid' } });
    await expect(loginCommand.execute(() => deps, { port: '6666', wait: false }, [])).rejects.toMatchObject({ code: 'blocked_port', exitCode: 2 });
    expect(await deps.state.profiles()).toEqual({});
  });

  it('is not taken from a cached registration made on a port browsers refuse', async () => {
    const listener = await listenForRedirect({ cachedRedirectUri: 'http://127.0.0.1:6000/callback', path: '/callback', timeoutMs: 5_000 });
    try {
      expect(listener.port).not.toBe(6000);
      expect(portProblem(listener.port)).toBeUndefined();
    } finally {
      await listener.close();
    }
  });
});

describe('the "did you mean" hint of login', () => {
  const base: LoginOptions = { browser: true, confidential: false, insecureStorage: false, dpop: true };

  it('is the whole command line, with the flags the user gave', () => {
    const err = thrown(() =>
      checkScopes(['openid', 'coures:read'], ['openid', 'courses:read'], (scopes) =>
        loginCommandLine({ ...base, baseUrl: 'http://127.0.0.1:8080', profile: 'work', browser: false, port: 8400 }, scopes),
      ),
    );
    expect(err).toMatchObject({
      code: 'invalid_scope',
      scope: 'coures:read',
      hint: 'school login --base-url http://127.0.0.1:8080 --profile work --scope openid,courses:read --port 8400 --no-browser',
    });
  });

  it('repeats --add-scope as --add-scope, and --add-scope with --scope is refused', async () => {
    expect(loginCommandLine({ ...base, profile: 'work' }, ['courses:write'], '--add-scope')).toBe('school login --profile work --add-scope courses:write');
    const deps = fakeDeps();
    await expect(loginCommand.execute(() => deps, { baseUrl: 'https://school.example', scope: ['courses:read'], addScope: ['courses:write'] }, [])).rejects.toMatchObject({
      exitCode: 2,
      message: 'Give --scope or --add-scope, not both: --scope asks for exactly those scopes, --add-scope for the ones held now plus these.',
    });
  });

  it('keeps a two-step login two-step', () => {
    expect(loginCommandLine({ ...base, wait: false }, ['courses:read'])).toBe('school login --scope courses:read --no-wait');
  });

  it('quotes what the shell would split', () => {
    expect(loginCommandLine({ ...base, profile: 'a b', json: true }, ['courses:read'])).toBe("school login --profile 'a b' --scope courses:read --json");
    expect(loginCommandLine({ ...base, baseUrl: "https://o'hara.example" }, ['a b'])).toBe(`school login --base-url 'https://o'\\''hara.example' --scope 'a b'`);
  });
});

describe('a base URL after logout', () => {
  it('stays known for the profile: in the login hint and as the next login default', async () => {
    const deps = fakeDeps();
    await updateConfig(deps.paths, (c) => {
      c.profiles.work = { baseUrl: 'https://school.example', issuer: 'https://school.example', clientId: 'c', authMethod: 'none', storage: 'file' };
    });
    await deps.state.removeProfile('work');
    expect(await deps.state.profile('work')).toBeUndefined();
    expect(await deps.state.rememberedBaseUrl('work')).toBe('https://school.example');
    expect(await deps.state.rememberedBaseUrl('other')).toBeUndefined();
    await expect(tokenCommand.execute(() => deps, { profile: 'work' }, [])).rejects.toMatchObject({
      code: 'not_logged_in',
      hint: 'school login --base-url https://school.example --profile work',
    });
  });
});

describe('the scope a hint suggests', () => {
  it('is never a server scope that is not a plain name', () => {
    const err = thrown(() => checkScopes(['courses:reed'], ["courses:read'; rm -rf ~; '", 'openid']));
    if (!(err instanceof Error) || !('hint' in err)) throw new Error('expected a usage error with a hint');
    expect(err).toMatchObject({ code: 'invalid_scope' });
    expect(`${err.message} ${String(err.hint)}`).not.toContain('rm -rf');
  });
});
