import { describe, expect, it } from 'vitest';
import { statusCommand } from '../../src/commands/status/status.js';
import { tokenCommand } from '../../src/commands/token/token.js';
import { updateConfig } from '../../src/state/config-file.js';
import { profileAccount } from '../../src/state/credential-store.js';
import { serializeTokenSet } from '../../src/state/token-set.js';
import { createDpopKey } from '../../src/oauth/dpop.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const NOW = 1_800_000_000_000;

async function seedProfile(deps: ReturnType<typeof fakeDeps>, name: string, storage: 'keychain' | 'file', secret?: string) {
  await updateConfig(deps.paths, (c) => {
    c.profiles[name] = {
      baseUrl: 'https://school.example',
      issuer: 'https://auth.school.example',
      clientId: 'cid-1',
      authMethod: 'none',
      storage,
      user: { name: 'Ada Lovelace', email: 'ada@example.edu' },
    };
  });
  if (secret !== undefined) {
    const store = await deps.state.openStore(storage);
    await store.set(profileAccount(deps.paths.configDir, name), secret);
  }
}

const tokens = {
  issuer: 'https://auth.school.example',
  clientId: 'cid-1',
  accessToken: 'at-live-0123456789',
  refreshToken: 'rt-live-0123456789',
  tokenType: 'bearer',
  obtainedAt: NOW / 1000 - 10,
  expiresAt: NOW / 1000 + 3590,
  scope: 'openid courses:read',
};

const tokenRun = (deps: ReturnType<typeof fakeDeps>, raw: Record<string, unknown>) => tokenCommand.execute(() => deps, raw, []);
const statusRun = (deps: ReturnType<typeof fakeDeps>, raw: Record<string, unknown>) => statusCommand.execute(() => deps, raw, []);

describe('school token (run)', () => {
  it('prints the token and a newline, nothing else', async () => {
    const deps = fakeDeps({ now: NOW });
    await seedProfile(deps, 'default', 'keychain', serializeTokenSet(tokens));
    await tokenRun(deps, {});
    expect(deps.io.stdout()).toBe('at-live-0123456789\n');
    expect(deps.io.stderr()).toBe('');
  });

  it('prints the documented JSON shape', async () => {
    const deps = fakeDeps({ now: NOW });
    await seedProfile(deps, 'default', 'file', serializeTokenSet(tokens));
    await tokenRun(deps, { json: true });
    expect(JSON.parse(deps.io.stdout())).toEqual({ access_token: 'at-live-0123456789', token_type: 'bearer', expires_at: tokens.expiresAt, scope: 'openid courses:read' });
  });

  it('exits 4 when not logged in', async () => {
    const deps = fakeDeps({ now: NOW });
    await expect(tokenRun(deps, {})).rejects.toMatchObject({ exitCode: 4, code: 'not_logged_in' });
  });

  describe('of tokens bound to a key (DPoP)', () => {
    const bound = async () => ({ ...tokens, tokenType: 'DPoP', dpopKey: await createDpopKey() });

    it('says token_type DPoP under --json, and nothing on stderr', async () => {
      const deps = fakeDeps({ now: NOW });
      await seedProfile(deps, 'default', 'file', serializeTokenSet(await bound()));
      await tokenRun(deps, { json: true });
      expect(JSON.parse(deps.io.stdout())).toMatchObject({ access_token: 'at-live-0123456789', token_type: 'DPoP' });
      expect(deps.io.stderr()).toBe('');
    });

    it('prints the token, and once on stderr that it needs a proof and what sends one', async () => {
      const deps = fakeDeps({ now: NOW });
      await seedProfile(deps, 'default', 'keychain', serializeTokenSet(await bound()));
      await tokenRun(deps, {});
      expect(deps.io.stdout()).toBe('at-live-0123456789\n');
      expect(deps.io.stderr()).toMatch(/^Note: this token is DPoP-bound: a request with it needs a proof of the key school keeps\. Send requests with `school call`.*--no-dpop.*\n$/);
    });

    it("is not handed over to CI: the key stays here, and a public client's refresh token is bound to it", async () => {
      const deps = fakeDeps({ now: NOW });
      await seedProfile(deps, 'ci-job', 'keychain', serializeTokenSet(await bound()));
      await expect(tokenRun(deps, { profile: 'ci-job', forCi: true })).rejects.toMatchObject({ exitCode: 2, hint: expect.stringContaining('--no-dpop') });
      expect(deps.io.stdout()).toBe('');
      // Nothing was forgotten: the profile still works here.
      await tokenRun(deps, { profile: 'ci-job' });
      expect(deps.io.stdout()).toBe('at-live-0123456789\n');
    });

    it('shows in status, as text and as token_type under --json', async () => {
      const deps = fakeDeps({ now: NOW });
      await seedProfile(deps, 'default', 'keychain', serializeTokenSet(await bound()));
      await seedProfile(deps, 'plain', 'keychain', serializeTokenSet(tokens));
      await statusRun(deps, {});
      expect(deps.io.stdout()).toMatch(/default \(active\)\n(?: {2}.*\n)* {2}Tokens: +DPoP-bound/);
      expect(
        deps.io
          .stdout()
          .split('\n\n')
          .find((block) => block.startsWith('plain')),
      ).not.toMatch(/DPoP/);
      const json = fakeDeps({ now: NOW });
      await seedProfile(json, 'default', 'keychain', serializeTokenSet(await bound()));
      await statusRun(json, { json: true });
      expect(JSON.parse(json.io.stdout())[0]).toMatchObject({ profile: 'default', token_type: 'DPoP' });
    });
  });

  it('does not read a locked keychain as logged out', async () => {
    const deps = fakeDeps({ now: NOW, keychain: 'locked' });
    await seedProfile(deps, 'default', 'keychain');
    await expect(tokenRun(deps, {})).rejects.toMatchObject({ exitCode: 4, code: 'credentials_missing', message: expect.stringMatching(/locked/) });
  });

  it('uses SCHOOL_TOKEN as it is, but only with a base URL', async () => {
    const deps = fakeDeps({ env: { SCHOOL_TOKEN: 'env-token-0123456789', SCHOOL_BASE_URL: 'https://school.example' } });
    await tokenRun(deps, {});
    expect(deps.io.stdout()).toBe('env-token-0123456789\n');
    const bare = fakeDeps({ env: { SCHOOL_TOKEN: 'env-token-0123456789' } });
    await expect(tokenRun(bare, {})).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('school status (run)', () => {
  it('reports every profile, broken ones included, and never a secret', async () => {
    const deps = fakeDeps({ now: NOW });
    await seedProfile(deps, 'default', 'keychain', serializeTokenSet(tokens));
    await seedProfile(deps, 'broken', 'file', '{corrupt');
    await seedProfile(deps, 'gone', 'keychain');
    await expect(statusRun(deps, { json: true })).rejects.toMatchObject({ exitCode: 1, code: 'profile_unusable', message: expect.stringMatching(/"broken", "gone"/) });
    const rows = JSON.parse(deps.io.stdout()) as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.profile)).toEqual(['broken', 'default', 'gone']);
    const def = rows.find((r) => r.profile === 'default')!;
    expect(def).toMatchObject({ active: true, storage: 'keychain', scopes: ['openid', 'courses:read'], expires_at: tokens.expiresAt, client_id: 'cid-1' });
    expect(rows.find((r) => r.profile === 'broken')!.problem).toMatch(/corrupted/);
    expect(rows.find((r) => r.profile === 'gone')!.problem).toMatch(/keychain/);
    expect(deps.io.stdout()).not.toMatch(/at-live|rt-live/);

    const human = fakeDeps({ now: NOW });
    await seedProfile(human, 'default', 'keychain', serializeTokenSet(tokens));
    await statusRun(human, {});
    expect(human.io.stdout()).toContain('default (active)');
    expect(human.io.stdout()).toContain('Ada Lovelace ada@example.edu');
    expect(human.io.stdout()).toMatch(/Expires: +\S+ \(in 60 min\)/);
    expect(human.io.stdout()).not.toMatch(/at-live|rt-live/);
  });

  it('exits 1 for a session the server refused to renew, and 0 when every profile is usable', async () => {
    const deps = fakeDeps({ now: NOW });
    await seedProfile(deps, 'default', 'keychain', serializeTokenSet(tokens));
    await statusRun(deps, {});
    await deps.state.markSessionRefused('default', 'invalid_grant: grant revoked', NOW / 1000);
    await expect(statusRun(deps, {})).rejects.toMatchObject({ exitCode: 1 });
    expect(deps.io.stdout()).toMatch(/Problem: +The server refused to renew the session of profile "default" \(invalid_grant: grant revoked\); it counts as logged out/);
    await expect(tokenRun(deps, {})).rejects.toMatchObject({ exitCode: 4, code: 'refresh_refused', hint: expect.stringMatching(/school login/) });
  });

  it('shows a pending login, alone or beside the profile it will replace', async () => {
    const deps = fakeDeps({ now: NOW });
    const pending = {
      profile: 'night',
      baseUrl: 'https://school.example',
      issuer: 'https://auth.school.example',
      clientId: 'cid-1',
      authMethod: 'none' as const,
      redirectUri: 'http://127.0.0.1:5000/callback',
      state: 's',
      codeVerifier: 'verifier-0123456789',
      scopes: ['openid'],
      storage: 'keychain' as const,
      authorizationUrl: 'https://auth.school.example/authorize?x',
      expiresAt: NOW / 1000 + 120,
    };
    await deps.state.savePendingLogin(pending);
    await expect(statusRun(deps, { json: true })).rejects.toMatchObject({ exitCode: 1 });
    const rows = JSON.parse(deps.io.stdout()) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      expect.objectContaining({
        profile: 'night',
        pending_login: { expires_at: NOW / 1000 + 120, url: 'https://auth.school.example/authorize?x' },
        problem: expect.stringMatching(/waiting for the browser/),
      }),
    ]);
    expect(deps.io.stdout()).not.toContain('verifier-0123456789');
  });
});

describe('school status: report lines after the profiles', () => {
  it('names the MCP audit log only once school mcp has written one', async () => {
    const deps = fakeDeps({ now: NOW });
    await seedProfile(deps, 'default', 'keychain', serializeTokenSet(tokens));
    await statusRun(deps, {});
    expect(deps.io.stdout()).not.toContain('MCP audit log');
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(deps.paths.auditFile), { recursive: true });
    writeFileSync(deps.paths.auditFile, '{}\n', { mode: 0o600 });
    const again = fakeDeps({ now: NOW, env: deps.env });
    await statusRun(again, {}).catch(() => undefined); // its keychain is a new, empty one: the report is printed all the same
    expect(again.io.stdout()).toContain(`MCP audit log: ${deps.paths.auditFile}\n`);
  });

  it('lists the clients handed to CI', async () => {
    const deps = fakeDeps({ now: NOW });
    await seedProfile(deps, 'default', 'keychain', serializeTokenSet(tokens));
    await deps.state.markHandedToCi({ profile: 'ci-nightly', baseUrl: 'https://school.example', issuer: 'https://auth.school.example', clientId: 'cid-1', handedOverAt: NOW / 1000 });
    await statusRun(deps, {});
    expect(deps.io.stdout()).toContain('Handed to CI (a logout here never deletes these clients at the server):\n  ci-nightly: client cid-1 at https://school.example, handed over 2027-01-15\n');
  });
});
