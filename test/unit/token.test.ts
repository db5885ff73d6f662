import { describe, expect, it } from 'vitest';
import { tokenCommand } from '../../src/commands/token/token.js';
import type { Profile } from '../../src/state/config-file.js';
import { API, AS, storedTokens } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

describe('school token --min-ttl', () => {
  it('refuses to promise a lifetime nobody told (a token from SCHOOL_TOKEN), and prints nothing', async () => {
    const deps = fakeDeps({ env: { SCHOOL_TOKEN: 'env-token-0123456789', SCHOOL_BASE_URL: API } });
    await expect(tokenCommand.execute(() => deps, { minTtl: '60' }, [])).rejects.toMatchObject({ exitCode: 4, code: 'ttl_unavailable' });
    expect(deps.io.stdout()).toBe('');
  });

  it('prints a token from SCHOOL_TOKEN as it is without --min-ttl', async () => {
    const deps = fakeDeps({ env: { SCHOOL_TOKEN: 'env-token-0123456789', SCHOOL_BASE_URL: API } });
    await tokenCommand.execute(() => deps, {}, []);
    expect(deps.io.stdout()).toBe('env-token-0123456789\n');
  });
});

describe('school token --for-ci: what a seed serves', () => {
  const NOW = 1_800_000_000;
  async function handOver(confidential: boolean) {
    const deps = fakeDeps({ now: NOW * 1000 });
    const profile: Profile = { baseUrl: API, issuer: AS, clientId: 'cid-1', authMethod: confidential ? 'client_secret_post' : 'none', storage: 'keychain' };
    await deps.state.saveProfile('ci-matrix', profile);
    await deps.state.saveTokens('ci-matrix', profile.storage, storedTokens(NOW, confidential ? { clientSecret: 'secret-0123456789' } : {}));
    await tokenCommand.execute(() => deps, { profile: 'ci-matrix', forCi: true }, []);
    return deps;
  }

  it("a public client's seed: serves one job at a time, and the ways to run jobs in parallel", async () => {
    const deps = await handOver(false);
    expect(deps.io.stdout()).toContain('SCHOOL_REFRESH_TOKEN=rt-stored-0123456789\n');
    const said = deps.io.stderr();
    expect(said).toMatch(/serves one job at a time/);
    expect(said).toMatch(/each job its own seed/);
    expect(said).toMatch(/school login --confidential` where the server does not rotate a confidential client's refresh tokens/);
    expect(said).not.toContain('rt-stored-0123456789');
  });

  it("a confidential client's seed: parallel jobs only where the server does not rotate its refresh tokens", async () => {
    const deps = await handOver(true);
    const said = deps.io.stderr();
    expect(said).toMatch(/several jobs at once only where the server does not rotate a confidential client's refresh tokens/);
    expect(said).toMatch(/each job its own seed/);
    expect(said).not.toContain('secret-0123456789');
  });
});
