// Client registration management (RFC 7592) against sandbox variants, through the real browser
// and keychain: the registration access token kept as a secret, the registration read by doctor
// and deleted with the last profile using it, and a registration_client_uri elsewhere refused.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '@school/sandbox';
import { type Env, KEYCHAIN_SERVICE, type RunResult, filesContaining, keytar, runSchool, userEnv, withVariants, eventsOf } from './harness.js';

const login = (sb: Sandbox, env: Env, extra: string[] = []): Promise<RunResult> => runSchool(['login', '--base-url', sb.baseUrl, ...extra], env);
const configOf = (env: Env) =>
  JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR!, 'config.json'), 'utf8')) as {
    clients: Record<string, Array<{ clientId: string; registrationClientUri?: string; registrationTokenStorage?: string }>>;
    profiles: Record<string, { clientId: string }>;
  };
/** Requests that reached a registration's own URI (read or delete), by any host name. */
const managementRequests = (sb: Sandbox) => eventsOf(sb, 'request').filter((e) => /^\/api\/oauth\/register\/./.test(String(e.path)));

/**
 * The registration access token the keychain holds for a client (null: none), read by its exact
 * account. Never a search of the whole keyring: other files add and delete entries meanwhile, and
 * keytar's search crashes its process on an entry deleted between finding it and reading it.
 */
async function registrationToken(issuer: string, clientId: string): Promise<string | null> {
  return (await keytar()).getPassword(KEYCHAIN_SERVICE, `registration:${issuer}#${clientId}`);
}

function expectOk(res: RunResult): void {
  expect(res.code, res.stderr).toBe(0);
}

describe('registration management (RFC 7592)', () => {
  it('keeps the registration access token in the keychain, reads it in doctor, and deletes the client with its last profile', async () => {
    await withVariants(['registration-management'], async (sb) => {
      const env = userEnv();
      expectOk(await login(sb, env));
      const config = configOf(env);
      const client = Object.values(config.clients).flat()[0]!;
      expect(client.registrationClientUri).toMatch(new RegExp(`^${sb.issuer}/api/oauth/register/`));
      expect(client.registrationTokenStorage).toBe('keychain');
      const token = await registrationToken(sb.issuer, client.clientId);
      expect(token).toBeTruthy();
      // Never on disk in plain text, never on the screen.
      expect(filesContaining(env.HOME, token!)).toEqual([]);

      const doctor = await runSchool(['doctor'], env);
      expect(doctor.stdout + doctor.stderr).toMatch(/still knows the client .* \(its registration was read\)/);
      expect(eventsOf(sb, 'registration_read').map((e) => e.status)).toEqual([200]);
      expect(doctor.stdout + doctor.stderr).not.toContain(token!);

      // A second profile on the same client: the first logout leaves the registration alone.
      expectOk(await login(sb, env, ['--profile', 'second']));
      expect(configOf(env).profiles.second!.clientId).toBe(client.clientId);
      expectOk(await runSchool(['whoami', '--profile', 'second'], env));
      expectOk(await runSchool(['logout'], env));
      expect(eventsOf(sb, 'registration_delete')).toEqual([]);
      const last = await runSchool(['logout', '--profile', 'second', '--json'], env);
      expectOk(last);
      expect(JSON.parse(last.stdout).profiles[0]).toMatchObject({ client_registration_deleted: true });
      expect(eventsOf(sb, 'registration_delete').map((e) => e.status)).toEqual([204]);
      expect(Object.values(configOf(env).clients).flat()).toEqual([]);
      expect(await registrationToken(sb.issuer, client.clientId)).toBeNull();
      // The server no longer knows it: the next login registers anew.
      expectOk(await login(sb, env));
      expect(eventsOf(sb, 'register')).toHaveLength(2);
    });
  });

  /** A desk that logs in twice on one client and hands the second profile to CI; the values CI stores. */
  async function deskWithSeed(sb: Sandbox, env: Env): Promise<Record<string, string>> {
    expectOk(await login(sb, env));
    expectOk(await login(sb, env, ['--profile', 'ci-nightly']));
    const handed = await runSchool(['token', '--profile', 'ci-nightly', '--for-ci', '--json'], env);
    expectOk(handed);
    return JSON.parse(handed.stdout) as Record<string, string>;
  }
  const ciJob = (values: Record<string, string>) => userEnv({ ...values, BROWSER: undefined });

  it('a client handed to CI survives a desk logout: status names it, the registration stays, the job runs', async () => {
    await withVariants(['registration-management'], async (sb) => {
      const desk = userEnv();
      const seed = await deskWithSeed(sb, desk);
      expect(seed.SCHOOL_CLIENT_ID).toBe(configOf(desk).profiles.default!.clientId);
      const status = await runSchool(['status'], desk);
      expect(status.stdout).toContain('Handed to CI (a logout here never deletes these clients at the server):');
      expect(status.stdout).toMatch(new RegExp(`ci-nightly: client ${seed.SCHOOL_CLIENT_ID} at ${sb.baseUrl}, handed over \\d{4}-\\d\\d-\\d\\d`));
      // The last desk profile on that client logs out: the registration is not deleted.
      expectOk(await runSchool(['logout'], desk));
      expect(eventsOf(sb, 'registration_delete')).toEqual([]);
      const token = await runSchool(['token'], ciJob(seed));
      expect(token.code, token.stderr).toBe(0);
      expect(token.stdout.trim().length).toBeGreaterThan(10);
    });
  });

  it('a CI job whose client registration is gone says so, and names the commands that make a new seed', async () => {
    await withVariants(['registration-management'], async (sb) => {
      const desk = userEnv();
      const seed = await deskWithSeed(sb, desk);
      // As a desk without the hand-over record would: the last logout deletes the client.
      const file = join(desk.SCHOOL_CONFIG_DIR, 'config.json');
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), ciClients: [] }), { mode: 0o600 });
      expectOk(await runSchool(['logout'], desk));
      expect(eventsOf(sb, 'registration_delete').map((e) => e.status)).toEqual([204]);
      const token = await runSchool(['token'], ciJob(seed));
      expect(token.code).toBe(4);
      expect(token.stderr).toContain('The server no longer knows the client in SCHOOL_CLIENT_ID: its registration is gone');
      expect(token.stderr).not.toContain('restore the cached SCHOOL_CONFIG_DIR');
      expect(token.stderr).toContain(`\nschool login --base-url ${sb.baseUrl} --profile ci-job\nschool token --profile ci-job --for-ci\n`);
      expect(token.stderr).not.toContain(seed.SCHOOL_REFRESH_TOKEN);
    });
  });

  it('logout --all deletes the registration once, with its last profile', async () => {
    await withVariants(['registration-management'], async (sb) => {
      const env = userEnv();
      expectOk(await login(sb, env));
      expectOk(await login(sb, env, ['--profile', 'second']));
      expectOk(await runSchool(['logout', '--all'], env));
      expect(eventsOf(sb, 'registration_delete').map((e) => e.status)).toEqual([204]);
    });
  });

  it('warns when the server does not delete the registration, and keeps it for the next login', async () => {
    await withVariants(['registration-delete-fails'], async (sb) => {
      const env = userEnv();
      expectOk(await login(sb, env));
      const logout = await runSchool(['logout'], env);
      expectOk(logout);
      expect(logout.stderr).toMatch(/Warning: the client registration could not be deleted at the server \(the registration endpoint answered HTTP 500\); it stays registered there\./);
      expect(Object.values(configOf(env).clients).flat()).toHaveLength(1);
    });
  });

  it('changes nothing where registration gives no registration_client_uri', async () => {
    await withVariants([], async (sb) => {
      const env = userEnv();
      expectOk(await login(sb, env));
      expect(Object.values(configOf(env).clients).flat()[0]!.registrationClientUri).toBeUndefined();
      expectOk(await runSchool(['logout'], env));
      expect(managementRequests(sb)).toEqual([]);
      expect(Object.values(configOf(env).clients).flat()).toHaveLength(1);
    });
  });

  it('hostile: a registration_client_uri on another origin is refused and nothing is sent there', async () => {
    await withVariants(['registration-foreign-client-uri'], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env);
      expectOk(res);
      expect(res.stderr).toMatch(/Warning: The server gave a registration_client_uri on another origin \(http:\/\/localhost:\d+\)/);
      const client = Object.values(configOf(env).clients).flat()[0]!;
      expect(client.registrationClientUri).toBeUndefined();
      // The one client registered at this server, and no registration access token kept for it.
      expect(eventsOf(sb, 'register').map((e) => e.client_id)).toEqual([client.clientId]);
      expect(await registrationToken(sb.issuer, client.clientId)).toBeNull();
      expectOk(await runSchool(['doctor'], env));
      expectOk(await runSchool(['logout'], env));
      expect(managementRequests(sb)).toEqual([]);
    });
  });
});
