import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { logoutCommand } from '../../src/commands/logout/logout.js';
import type { Profile } from '../../src/state/config-file.js';
import { clientAccount, jobAccount, pendingLoginAccount, profileAccount } from '../../src/state/credential-store.js';
import { API, AS, fakeAuthServer, storedTokens } from '../helpers/fake-auth-server.js';
import { type KeychainCondition, fakeDeps } from '../helpers/fake-deps.js';

const NOW = 1_800_000_000;
const tokens = storedTokens(NOW);

async function setup(p: { revocation?: 'ok' | 'absent' | 'access_unsupported' | 'unavailable'; confidential?: boolean; keychain?: KeychainCondition } = {}) {
  const server = fakeAuthServer();
  server.revocation = p.revocation ?? 'ok';
  const deps = fakeDeps({ http: server, now: NOW * 1000, keychain: p.keychain });
  const profile: Profile = { baseUrl: API, issuer: AS, clientId: 'cid-1', authMethod: p.confidential ? 'client_secret_post' : 'none', storage: 'keychain' };
  await deps.state.saveProfile('default', profile);
  deps.keychainStore.entries.set(profileAccount(deps.paths.configDir, 'default'), JSON.stringify({ ...tokens, clientSecret: p.confidential ? 'secret-0123456789' : undefined }));
  if (p.confidential) {
    await deps.state.saveClient(
      AS,
      { clientId: 'cid-1', authMethod: 'client_secret_post', redirectUri: 'http://127.0.0.1:5000/callback', registeredAt: NOW, secretStorage: 'keychain' },
      'secret-0123456789',
    );
  }
  const logout = (raw: Record<string, unknown> = {}) => logoutCommand.execute(() => deps, raw, []);
  return { server, deps, logout };
}

describe('school logout (run)', () => {
  it('exits 0 when the server revoked both tokens, and says what was done in JSON', async () => {
    const { server, deps, logout } = await setup();
    await logout({ json: true });
    expect(server.revoked).toEqual(['rt-stored-0123456789', 'at-stored-0123456789']);
    expect(JSON.parse(deps.io.stdout())).toEqual({
      profiles: [{ profile: 'default', base_url: API, revocation: 'revoked', local_secrets_removed: true, client_secret_removed: false }],
      pending_logins_cancelled: [],
      ci_job_states_removed: 0,
    });
    expect(deps.io.stdout()).not.toMatch(/at-stored|rt-stored/);
    expect(deps.keychainStore.entries.size).toBe(0);
  });

  it('exits 0 when the server does not revoke access tokens (unsupported_token_type)', async () => {
    const { server, deps, logout } = await setup({ revocation: 'access_unsupported' });
    await logout();
    expect(server.revoked).toEqual(['rt-stored-0123456789']);
    expect(deps.io.stderr()).toMatch(/the server revoked the tokens/);
  });

  it('exits 0 with a warning when the server has no revocation endpoint', async () => {
    const { deps, logout } = await setup({ revocation: 'absent' });
    await logout();
    expect(deps.io.stderr()).toMatch(/Warning: the server has no revocation endpoint, so the tokens stay valid until they expire/);
    expect(await deps.state.profile('default')).toBeUndefined();
  });

  it('still revokes both tokens of a session the server refused to renew, and keeps no token in config.json', async () => {
    const { server, deps, logout } = await setup();
    // The refusal's text echoes the refresh token (a server bug, or a hostile proxy).
    await deps.state.readTokens('default', (await deps.state.profile('default'))!);
    await deps.state.markSessionRefused('default', 'invalid_grant: nope rt=rt-stored-0123456789', NOW);
    const config = await readFile(deps.paths.configFile, 'utf8');
    expect(config).toMatch(/sessionRefused/);
    expect(config).not.toMatch(/rt-stored/);
    await logout();
    expect(server.revoked).toEqual(['rt-stored-0123456789', 'at-stored-0123456789']);
    expect(deps.io.stderr()).toMatch(/the server revoked the tokens/);
  });

  it('exits 1 when the server refused, with local secrets forgotten all the same', async () => {
    const { deps, logout } = await setup({ revocation: 'unavailable' });
    await expect(logout()).rejects.toMatchObject({ exitCode: 1, code: 'logout_incomplete', message: expect.stringMatching(/did not confirm the revocation/) });
    expect(deps.keychainStore.entries.size).toBe(0);
    expect(await deps.state.profile('default')).toBeUndefined();
  });

  it("forgets a confidential client's secret and registration with the last profile that uses it", async () => {
    const { deps, logout } = await setup({ confidential: true });
    expect(deps.keychainStore.entries.get(clientAccount(AS, 'cid-1'))).toBe('secret-0123456789');
    await logout({ json: true });
    expect(deps.keychainStore.entries.size).toBe(0);
    expect(await deps.state.clientRegistration(AS, () => true)).toBeUndefined();
    expect(JSON.parse(deps.io.stdout()).profiles[0].client_secret_removed).toBe(true);
  });

  it('keeps a confidential client shared with another profile', async () => {
    const { deps, logout } = await setup({ confidential: true });
    await deps.state.saveProfile('other', { baseUrl: API, issuer: AS, clientId: 'cid-1', authMethod: 'client_secret_post', storage: 'keychain' });
    await logout();
    expect(deps.keychainStore.entries.get(clientAccount(AS, 'cid-1'))).toBe('secret-0123456789');
  });

  it('says one thing, once, when the keychain cannot remove the secret, and how to remove it by hand', async () => {
    const { deps, logout } = await setup();
    deps.keychainStore.delete = async () => {
      throw new Error('The OS keychain failed: the keyring is locked.');
    };
    const account = profileAccount(deps.paths.configDir, 'default');
    await expect(logout()).rejects.toMatchObject({
      exitCode: 1,
      message: `Could not remove a stored secret of ${API} from the OS keychain (The OS keychain failed: the keyring is locked); the profile is kept so that a later \`school logout\` can finish. To remove it by hand, delete the keychain entry with service "school-cli" and account "${account}".`,
    });
    expect(deps.io.stderr()).toBe('');
    // Kept, so that a later logout can finish the job.
    expect(await deps.state.profile('default')).toBeDefined();
  });

  it('--all also removes headless CI job state and pending logins', async () => {
    const { deps, logout } = await setup();
    const job = await deps.state.jobState('0123abcd');
    await job.write(tokens);
    expect(deps.keychainStore.entries.has(jobAccount('0123abcd'))).toBe(true);
    await deps.state.savePendingLogin({
      profile: 'night',
      baseUrl: API,
      issuer: AS,
      clientId: 'cid-1',
      authMethod: 'none',
      redirectUri: 'http://127.0.0.1:5000/callback',
      state: 's',
      codeVerifier: 'verifier-0123456789',
      scopes: ['openid'],
      storage: 'keychain',
      authorizationUrl: `${AS}/authorize?x`,
      expiresAt: NOW + 100,
    });
    await logout({ all: true, json: true });
    expect(JSON.parse(deps.io.stdout())).toMatchObject({ pending_logins_cancelled: ['night'], ci_job_states_removed: 1 });
    expect(deps.keychainStore.entries.has(jobAccount('0123abcd'))).toBe(false);
    expect(deps.keychainStore.entries.has(pendingLoginAccount(deps.paths.configDir, 'night'))).toBe(false);
    expect(await deps.state.pendingLoginRecords()).toEqual([]);
    expect(deps.keychainStore.entries.size).toBe(0);
  });
});
