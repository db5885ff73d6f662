import { describe, expect, it } from 'vitest';
import { tokenCommand } from '../../src/commands/token/token.js';
import { API } from '../helpers/fake-auth-server.js';
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
