import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { callCommand } from '../../src/commands/call/call.js';
import { loginCommand } from '../../src/commands/login/login.js';
import { statusCommand } from '../../src/commands/status/status.js';
import { type LoginHooks, completeLogin, prepareLogin } from '../../src/login/transaction.js';
import { updateConfig } from '../../src/state/config-file.js';
import { API, AS, fakeAuthServer } from '../helpers/fake-auth-server.js';
import { type KeychainCondition, fakeDeps } from '../helpers/fake-deps.js';

const REDIRECT_URI = 'http://127.0.0.1:5555/callback';
const request = { profile: 'default', baseUrl: API, timeoutSeconds: 300, confidential: false, insecureStorage: false };

function setup(keychain: KeychainCondition = 'ok') {
  const server = fakeAuthServer();
  const deps = fakeDeps({ http: server, now: 1_800_000_000_000, keychain });
  const notices: string[] = [];
  const hooks: LoginHooks = { notify: (t) => notices.push(t), listen: async () => ({ redirectUri: REDIRECT_URI }) };
  return { server, deps, notices, hooks };
}

const redirectFor = (p: { redirectUri: string; state: string }, extra: Record<string, string> = { code: 'code-0123456789' }) =>
  new URL(`${p.redirectUri}?${new URLSearchParams({ state: p.state, iss: AS, ...extra })}`);

describe('a first login that times out', () => {
  it('names the base URL in the command to run again, says nothing of storage, and leaves no credential file', async () => {
    const { deps } = setup('missing');
    const failed = loginCommand.execute(() => deps, { baseUrl: API, timeout: '0.2', browser: true }, []);
    await expect(failed).rejects.toMatchObject({ code: 'timeout', hint: `Try again (with a longer --timeout to wait longer):\nschool login --base-url ${API}` });
    expect(deps.io.stderr()).not.toMatch(/keychain|plain text|D-Bus/i);
    expect(existsSync(deps.paths.credentialsFile)).toBe(false);
  });
});

describe('the base URL after logout', () => {
  async function loggedOut() {
    const { server, deps } = setup();
    await updateConfig(deps.paths, (c) => {
      c.profiles.default = { baseUrl: API, issuer: AS, clientId: 'c', authMethod: 'none', storage: 'keychain' };
    });
    await deps.state.removeProfile('default');
    return { server, deps };
  }

  it('is the one status names in the login to run', async () => {
    const { deps } = await loggedOut();
    await statusCommand.execute(() => deps, {}, []);
    expect(deps.io.stderr()).toBe(`No profiles. Add one with:\nschool login --base-url ${API}\n`);
  });

  it('is the one call sends an anonymous request to', async () => {
    const { server, deps } = await loggedOut();
    await callCommand.execute(() => deps, {}, ['/api/courses']).catch(() => undefined);
    expect(server.asked).toContain(`GET ${API}/api/courses`);
  });
});

describe('where a login without a keychain puts its secrets', () => {
  it('is said once they are stored, in plain words, the system reason only with --verbose', async () => {
    const { deps, notices, hooks } = setup('missing');
    const pending = await prepareLogin(deps, request, hooks);
    expect(notices.join('')).toBe('');
    const result = await completeLogin(deps, pending, redirectFor(pending));
    const notice = result.warnings.find((w) => w.includes('plain text'));
    expect(notice).toBe(`No OS keychain could be used, so the credentials are stored in plain text at ${deps.paths.credentialsFile}, readable only by you (mode 0600). \`school doctor\` says why.`);

    const verbose = setup('missing');
    verbose.deps.verbose = true;
    const again = await prepareLogin(verbose.deps, request, verbose.hooks);
    const said = (await completeLogin(verbose.deps, again, redirectFor(again))).warnings.join(' ');
    expect(said).toContain('(Cannot autolaunch D-Bus without X11 $DISPLAY)');
  });

  it('names a keychain module that npm could not build, at the first login, without --verbose', async () => {
    const { deps, hooks } = setup('no-module');
    const pending = await prepareLogin(deps, request, hooks);
    const notice = (await completeLogin(deps, pending, redirectFor(pending))).warnings.find((w) => w.includes('plain text'));
    expect(notice).toBe(
      `The keychain module (keytar) is not installed, so the credentials are stored in plain text at ${deps.paths.credentialsFile}, readable only by you (mode 0600). \`school doctor\` says why, and how to build it.`,
    );
    expect(notice).not.toContain('\n');
  });

  it('is no file at all when the login stores nothing', async () => {
    const { deps, hooks } = setup('missing');
    const pending = await prepareLogin(deps, request, hooks);
    await expect(completeLogin(deps, pending, redirectFor(pending, { error: 'access_denied' }))).rejects.toMatchObject({ code: 'access_denied' });
    await deps.state.removePendingLogin('default', pending.storage);
    expect(existsSync(deps.paths.credentialsFile)).toBe(false);
  });

  it('says --insecure-storage chose the file', async () => {
    const { deps, hooks } = setup();
    const pending = await prepareLogin(deps, { ...request, insecureStorage: true }, hooks);
    const result = await completeLogin(deps, pending, redirectFor(pending));
    expect(result.warnings).toContain(`The credentials are stored in plain text at ${deps.paths.credentialsFile}, readable only by you (mode 0600), as --insecure-storage asked.`);
  });
});

describe('a login whose saved client the server refuses once the browser came back', () => {
  it('forgets it, registers again, says so and completes in one more round', async () => {
    const server = fakeAuthServer();
    let rounds = 0;
    const deps = fakeDeps({
      http: server,
      browser: {
        async open(url) {
          rounds++;
          const asked = new URL(url).searchParams;
          // The first round: the server loses the client between the sign-in page and the code exchange.
          if (rounds === 1) server.forgotten.add(asked.get('client_id') ?? '');
          const back = new URL(asked.get('redirect_uri') ?? '');
          back.search = new URLSearchParams({ code: 'code-0123456789', state: asked.get('state') ?? '', iss: AS }).toString();
          setTimeout(() => void fetch(back).catch(() => undefined), 10);
          return { opened: true };
        },
      },
    });
    const first = await prepareLogin(deps, request, { notify: () => undefined, listen: async () => ({ redirectUri: REDIRECT_URI }) });
    await completeLogin(deps, first, redirectFor(first));
    await deps.state.removePendingLogin('default', first.storage);

    await loginCommand.execute(() => deps, { timeout: '10', browser: true }, []);
    expect(rounds).toBe(2);
    expect(deps.io.stderr()).toContain('it has been forgotten. Registering again; sign in once more.');
    expect(deps.io.stderr()).toContain('Logged in as Ada Lovelace');
    expect(server.asked.filter((a) => a === `POST ${AS}/register`)).toHaveLength(2);
  });
});

describe('a connection that is refused', () => {
  it('names the host and the port that refused it, the port being the usual mistake', async () => {
    const { createServer } = await import('node:net');
    const { createHttpClient } = await import('../../src/http/client.js');
    const { describeError } = await import('../../src/errors.js');
    // A port that was just free: nothing listens there now.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address() as { port: number };
        s.close(() => resolve(p));
      });
    });
    const err = await createHttpClient({ env: {} })
      .request({ url: `http://127.0.0.1:${port}/api` })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(describeError(err).message).toBe(`Could not reach the server (127.0.0.1:${port}): connection refused.`);
    expect(describeError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', address: '::1', port: 8443 })).message).toBe(
      'Could not reach the server ([::1]:8443): connection refused.',
    );
  });
});
