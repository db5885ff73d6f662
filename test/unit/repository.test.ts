import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/state/config-file.js';
import { type StorageKind, STORAGE_KINDS, profileAccount } from '../../src/state/credential-store.js';
import type { PendingLogin } from '../../src/state/pending-login.js';
import { StateProblem } from '../../src/state/problems.js';
import type { TokenSet } from '../../src/state/token-set.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const ISSUER = 'https://login.school.example';
const profileIn = (storage: StorageKind): Profile => ({ baseUrl: 'https://school.example', issuer: ISSUER, clientId: 'cid-1', authMethod: 'none', storage });
const tokens: TokenSet = { issuer: ISSUER, clientId: 'cid-1', accessToken: 'at-stored-0123456789', refreshToken: 'rt-stored-0123456789', tokenType: 'bearer', obtainedAt: 1000, expiresAt: 4600 };

async function problemOf(promise: Promise<unknown>): Promise<StateProblem> {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof StateProblem)) throw new Error(`expected a StateProblem, got ${String(err)}`);
  return err;
}

describe.each(STORAGE_KINDS)('the state repository, tokens in the %s backend', (kind) => {
  it('saves, reads and forgets a profile with its tokens', async () => {
    const { state } = fakeDeps();
    await state.saveProfile('default', profileIn(kind));
    await state.saveTokens('default', kind, tokens);
    expect(await state.profile('default')).toEqual(profileIn(kind));
    expect(await state.readTokens('default', profileIn(kind))).toEqual(tokens);
    await state.forgetTokens('default', kind);
    expect((await problemOf(state.readTokens('default', profileIn(kind)))).problem).toBe('missing');
  });

  it('says why stored tokens cannot be used: missing, corrupt, wrong issuer (all exit 4)', async () => {
    const deps = fakeDeps();
    const { state } = deps;
    const missing = await problemOf(state.readTokens('default', profileIn(kind)));
    expect(missing).toMatchObject({ problem: 'missing', exitCode: 4, code: 'credentials_missing' });

    await (await state.openStore(kind)).set(profileAccount(deps.paths.configDir, 'default'), '{"not":"tokens"}');
    expect(await problemOf(state.readTokens('default', profileIn(kind)))).toMatchObject({ problem: 'corrupt', code: 'corrupt_store', message: expect.stringMatching(/incomplete/) });

    await state.saveTokens('default', kind, { ...tokens, issuer: 'https://other.example' });
    const inspected = await state.inspectTokens('default', profileIn(kind));
    expect(inspected.ok ? undefined : inspected.problem).toMatchObject({ problem: 'wrong_issuer', code: 'issuer_mismatch' });
  });

  it('round-trips a pending login, keeping its verifier out of the plain state file', async () => {
    const deps = fakeDeps();
    const pending: PendingLogin = {
      profile: 'night',
      baseUrl: 'https://school.example',
      issuer: ISSUER,
      clientId: 'cid-1',
      authMethod: 'none',
      redirectUri: 'http://127.0.0.1:5555/callback',
      state: 'state-0123456789',
      codeVerifier: 'verifier-0123456789-abcdefghijklmnopqrstuvwxyz',
      scopes: ['openid', 'courses:read'],
      storage: kind,
      authorizationUrl: `${ISSUER}/authorize?state=state-0123456789`,
      expiresAt: 2000,
    };
    await deps.state.savePendingLogin(pending);
    expect(await deps.state.pendingLogin('night')).toEqual(pending);
    expect(readFileSync(join(deps.paths.pendingDir, 'night.json'), 'utf8')).not.toContain(pending.codeVerifier);
    await deps.state.removePendingLogin('night', kind);
    expect(await deps.state.pendingLogin('night')).toBeUndefined();
  });
});

describe('the state repository and the keychain', () => {
  it('tells a locked keyring from a removed entry', async () => {
    const deps = fakeDeps({ keychain: 'locked' });
    expect(await problemOf(deps.state.readTokens('default', profileIn('keychain')))).toMatchObject({ problem: 'keyring_locked', message: expect.stringMatching(/locked/) });
  });

  it('keeps CI job state in the keychain when usable, else in the job file, and remembers the choice', async () => {
    const withKeychain = fakeDeps();
    const job = await withKeychain.state.jobState('k1');
    await job.write(tokens);
    expect([...withKeychain.keychainStore.entries.keys()]).toEqual(['ci:k1']);
    expect(await (await withKeychain.state.jobState('k1')).read()).toEqual(tokens);

    const without = fakeDeps({ keychain: 'missing' });
    const fileJob = await without.state.jobState('k2');
    await fileJob.write(tokens);
    expect(fileJob.location).toBe(without.paths.jobCredentialsFile);
    expect(JSON.parse(readFileSync(without.paths.jobCredentialsFile, 'utf8')).entries['ci:k2']).toBeTruthy();
    expect(fileJob.rotationNoticeShown).toBe(false);
    await fileJob.markRotationNoticeShown();
    expect((await without.state.jobState('k2')).rotationNoticeShown).toBe(true);
  });

  it('reads damaged job state as none, so the job starts again from its seed', async () => {
    const deps = fakeDeps({ keychain: 'missing' });
    const job = await deps.state.jobState('k3');
    await job.write(tokens);
    const shape = JSON.parse(readFileSync(deps.paths.jobCredentialsFile, 'utf8'));
    shape.entries['ci:k3'] = '{garbage';
    writeFileSync(deps.paths.jobCredentialsFile, JSON.stringify(shape));
    expect(await job.read()).toBeUndefined();
  });
});
