// Servers as they are: one sandbox variant per server shape seen in the field, each with a journey
// through the real browser and keychain (login, call, a second login, refresh, whoami, logout),
// counting the registrations each journey makes: one at most, none on the second login.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHALLENGE_METADATA_PATH, CHALLENGE_SCOPE, PRE_REGISTERED_CLIENTS, type Sandbox, type SandboxEvent, WRITE_CHALLENGE_SCOPE } from '@school/sandbox';
import { type Env, REPO, type RunResult, expectSessionAfterLogin, runSchool, spawnNode, userEnv, withVariants } from './harness.js';

const eventsOf = (sb: Sandbox, type: string): SandboxEvent[] => sb.events.filter((e) => e.type === type);
const registrations = (sb: Sandbox) => eventsOf(sb, 'register').length;
/** The data of doctor's finding about the server's shape. */
const shapes = (doctor: RunResult) => (JSON.parse(doctor.stdout).findings as Array<{ check: string; data?: Record<string, unknown> }>).find((f) => f.check === 'shapes')?.data;
const login = (sb: Sandbox, env: Env, extra: string[] = [], input?: string): Promise<RunResult> => runSchool(['login', '--base-url', sb.baseUrl, ...extra], env, input);

/** Login, a call, a second login that registers nothing, then refresh, whoami, call and logout. */
async function journey(sb: Sandbox, env: Env, extra: string[] = [], input?: string): Promise<RunResult> {
  const first = await login(sb, env, extra, input);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toMatch(/Logged in as Ada Lovelace/);
  expect(registrations(sb)).toBeLessThanOrEqual(1);
  const call = await runSchool(['call', '/api/courses'], env);
  expect(call.code, call.stderr).toBe(0);
  expect(JSON.parse(call.stdout)).toMatchObject({ anonymous: false });
  const before = registrations(sb);
  const second = await login(sb, env, extra, input);
  expect(second.code, second.stderr).toBe(0);
  expect(registrations(sb)).toBe(before);
  await expectSessionAfterLogin(sb, env);
  return first;
}

describe('servers as they are', () => {
  it('a client_secret without client_secret_expires_at is a secret that does not expire', async () => {
    await withVariants(['secret-without-expiry'], async (sb) => {
      await journey(sb, userEnv(), ['--confidential']);
      expect(eventsOf(sb, 'register')).toEqual([expect.objectContaining({ token_endpoint_auth_method: 'client_secret_post' })]);
      expect(
        eventsOf(sb, 'token')
          .filter((e) => e.grant_type === 'authorization_code')
          .every((e) => e.ok),
      ).toBe(true);
    });
  });

  it('a public registration the server made confidential is kept and used as registered', async () => {
    await withVariants(['public-made-confidential'], async (sb) => {
      await journey(sb, userEnv());
      expect(eventsOf(sb, 'register')).toEqual([expect.objectContaining({ token_endpoint_auth_method: 'client_secret_post' })]);
    });
  });

  it('an API under a path: its path-scoped metadata, calls relative to the path', async () => {
    await withVariants(['api-under-path'], async (sb) => {
      expect(new URL(sb.baseUrl).pathname).toBe('/school');
      await journey(sb, userEnv());
      const asked = eventsOf(sb, 'request').map((e) => e.path);
      expect(asked).toContain('/.well-known/oauth-protected-resource/school');
      expect(asked).not.toContain('/.well-known/oauth-protected-resource');
      expect(eventsOf(sb, 'api').map((e) => e.path)).toContain('/api/courses');
      expect(eventsOf(sb, 'token').find((e) => e.grant_type === 'authorization_code')?.resource).toBe(sb.baseUrl);
    });
  });

  it("an API under a path whose metadata is only at the origin's address, naming the origin", async () => {
    await withVariants(['metadata-at-origin-only'], async (sb) => {
      const env = userEnv();
      await journey(sb, env);
      expect(eventsOf(sb, 'token').find((e) => e.grant_type === 'authorization_code')?.resource).toBe(new URL(sb.baseUrl).origin);
      const doctor = await runSchool(['doctor', '--json', '--base-url', sb.baseUrl], env);
      expect(shapes(doctor)).toMatchObject({ resource_metadata: 'origin' });
    });
  });

  it('metadata only through a challenge: call without a login names the login, which follows the challenge', async () => {
    await withVariants(['metadata-by-challenge-only'], async (sb) => {
      const env = userEnv();
      const anonymous = await runSchool(['call', '--base-url', sb.baseUrl, '/api/courses'], env);
      expect(anonymous.code).toBe(4);
      expect(anonymous.stderr).toContain(`school login --base-url ${sb.baseUrl} --add-scope ${CHALLENGE_SCOPE}`);
      await journey(sb, env);
      expect(eventsOf(sb, 'request').map((e) => e.path)).toContain('/meta/protected-resource.json');
      expect(String(eventsOf(sb, 'authorize_request')[0]?.scope).split(' ')).toContain(CHALLENGE_SCOPE);
      const doctor = await runSchool(['doctor', '--json'], env);
      expect(shapes(doctor)).toMatchObject({ resource_metadata: 'challenge' });
    });
  });

  it('metadata only through the challenge of a write: call -X POST names the login, which follows that challenge, and the write then works', async () => {
    await withVariants(['metadata-by-write-challenge-only', 'issuer-path'], async (sb) => {
      const env = userEnv();
      // Nothing at the base URL leads to the authorization server: the login says where it looked, and how to see the challenge.
      const blind = await login(sb, env);
      expect(blind.code).toBe(1);
      expect(blind.stderr).toContain(`${sb.baseUrl}/.well-known/oauth-protected-resource`);
      expect(blind.stderr).toContain(`school call --base-url ${sb.baseUrl} -X POST`);
      const write = ['call', '-X', 'POST', '/api/courses', '-f', 'title=Algebra'];
      const refused = await runSchool([...write, '--base-url', sb.baseUrl], env);
      expect(refused.code, refused.stderr).toBe(4);
      const command = `school login --base-url ${sb.baseUrl} --add-scope ${WRITE_CHALLENGE_SCOPE}`;
      expect(refused.stderr).toContain(command);
      // school api reads the same answer the same way: the one classifier, through the one runner.
      const viaApi = await runSchool(['api', '--base-url', sb.baseUrl, 'create-course', '--title', 'Algebra', '--anonymous'], env);
      expect(viaApi.code, viaApi.stderr).toBe(4);
      expect(viaApi.stderr).toContain(command);
      // The login it names, word for word: the challenge's metadata and scope are remembered for it.
      const loggedIn = await runSchool(command.split(' ').slice(1), env);
      expect(loggedIn.code, loggedIn.stderr).toBe(0);
      expect(eventsOf(sb, 'request').map((e) => e.path)).toContain(CHALLENGE_METADATA_PATH);
      expect(String(eventsOf(sb, 'authorize_request').at(-1)?.scope).split(' ')).toContain(WRITE_CHALLENGE_SCOPE);
      const written = await runSchool(write, env);
      expect(written.code, written.stderr).toBe(0);
      expect(JSON.parse(written.stdout)).toMatchObject({ title: 'Algebra' });
    });
  });

  it('scopes listed only in the resource metadata are the default read scopes', async () => {
    await withVariants(['scopes-in-resource-only'], async (sb) => {
      await journey(sb, userEnv());
      const asked = String(eventsOf(sb, 'authorize_request')[0]?.scope).split(' ');
      expect(asked).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'courses:read', 'students:read']));
      expect(asked.filter((s) => s.endsWith(':write'))).toEqual([]);
    });
  });

  it('no registration endpoint: a public client registered out of band, never registered, never deleted', async () => {
    await withVariants(['no-registration-endpoint', 'registration-management'], async (sb) => {
      const env = userEnv();
      const refused = await login(sb, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/does not offer dynamic client registration/);
      const first = await login(sb, env, ['--client-id', PRE_REGISTERED_CLIENTS.public.client_id]);
      expect(first.code, first.stderr).toBe(0);
      const status = await runSchool(['status'], env);
      expect(status.stdout).toMatch(/Client: +school-cli-preregistered \(pre-registered\)/);
      const doctor = await runSchool(['doctor', '--json'], env);
      expect(shapes(doctor)).toMatchObject({ pre_registered_client: true });
      await journey(sb, env);
      expect(registrations(sb)).toBe(0);
      expect(eventsOf(sb, 'registration_delete')).toEqual([]);
    });
  });

  it('no registration endpoint: a confidential client registered out of band, its secret from stdin', async () => {
    await withVariants(['no-registration-endpoint'], async (sb) => {
      const env = userEnv();
      const { client_id: id, client_secret: secret } = PRE_REGISTERED_CLIENTS.confidential;
      await journey(sb, env, ['--client-id', id, '--client-secret-stdin'], `${secret}\n`);
      const exchanges = eventsOf(sb, 'token').filter((e) => e.grant_type === 'authorization_code');
      expect(exchanges.map((e) => [e.client_id, e.ok])).toEqual([
        [id, true],
        [id, true],
      ]);
      expect(registrations(sb)).toBe(0);
    });
  });

  it('DPoP offered by the server but not accepted by the API: bearer tokens, which the API takes', async () => {
    await withVariants(['dpop-not-accepted-by-api'], async (sb) => {
      const env = userEnv();
      await journey(sb, env);
      const issued = eventsOf(sb, 'token').filter((e) => e.ok);
      expect(issued.map((e) => e.token_type)).toEqual(issued.map(() => 'Bearer'));
      expect(issued.map((e) => e.dpop)).toEqual(issued.map(() => null));
      expect(eventsOf(sb, 'api').filter((e) => e.refused)).toEqual([]);
    });
  });
});

describe('scopeNeeded from the library', () => {
  it("reads the sandbox API's 403 insufficient_scope into the scope and the login that adds it", async () => {
    await withVariants([], async (sb) => {
      const env = userEnv();
      const res = await login(sb, env, ['--scope', 'courses:read']);
      expect(res.code, res.stderr).toBe(0);
      const dir = mkdtempSync(join(tmpdir(), 'school-scope-needed-'));
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(REPO, join(dir, 'node_modules', 'school'), 'dir');
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'uses-school', private: true, type: 'module' }));
      writeFileSync(
        join(dir, 'script.mjs'),
        [
          "import { openSession, scopeNeeded } from 'school';",
          'const session = await openSession();',
          "const denied = await session.fetch('/api/courses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{\"title\":\"Algebra\"}' });",
          "const fine = await session.fetch('/api/courses');",
          'console.log(JSON.stringify({ status: denied.status, needed: scopeNeeded(denied), fine: scopeNeeded(fine) ?? null }));',
        ].join('\n'),
      );
      const ran = await spawnNode([join(dir, 'script.mjs')], env, { cwd: dir }).done;
      expect(ran.code, ran.stderr).toBe(0);
      expect(JSON.parse(ran.stdout)).toEqual({ status: 403, needed: { scope: ['courses:write'], hint: 'school login --add-scope courses:write' }, fine: null });
    });
  });
});
