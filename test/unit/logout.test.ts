import { describe, expect, it } from 'vitest';
import { logoutCommand } from '../../src/commands/logout/logout.js';
import { loadConfig, updateConfig } from '../../src/state/config-file.js';
import { fakeDeps } from '../helpers/fake-deps.js';

describe('school logout (run)', () => {
  it('says plainly when the local secrets could not be removed, naming the profile once', async () => {
    const deps = fakeDeps();
    await updateConfig(deps.paths, (c) => {
      c.profiles.default = { baseUrl: 'https://school.example', issuer: 'https://auth.school.example', clientId: 'cid', authMethod: 'none', storage: 'keychain' };
    });
    deps.keychainStore.delete = async () => {
      throw new Error('The OS keychain failed: the keyring is locked.');
    };
    await expect(logoutCommand.execute(() => deps, {}, [])).rejects.toMatchObject({ exitCode: 1, code: 'secrets_kept', message: 'The stored secrets of "default" could not be removed; remove them from the store by hand.' });
    expect(deps.io.stderr()).toContain('Could not remove the stored secrets of "default"');
    expect((await loadConfig(deps.paths)).profiles).toEqual({});
  });
});
