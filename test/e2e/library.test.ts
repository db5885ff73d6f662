import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '@school/sandbox';
import { type Env, REPO, expectSuccess, runSchool, spawnNode, useSandbox, userEnv } from './harness.js';

// The library as a script in a fresh directory uses it: `import { openSession } from 'school'`,
// resolved through the package's exports, in a process of its own beside the command line.
const TTL = 8;
const sandbox = useSandbox({ accessTokenTtl: TTL });
// Tokens that last an hour: one refresh then serves every process, however slow the machine.
const longLived = useSandbox();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitForRefreshWindow = () => sleep((TTL / 2) * 1000 + 400);
const refreshGrants = (sb: Sandbox) => sb.events.filter((e) => e.type === 'token' && e.grant_type === 'refresh_token');

const SCRIPT = `
import { openSession, SchoolError } from 'school';
const [action, arg] = process.argv.slice(2);
try {
  if (action !== 'import') {
    const session = await openSession();
    if (action === 'token') console.log(await session.token());
    if (action === 'whoami') console.log(JSON.stringify(await session.whoami()));
    if (action === 'fetch') {
      const res = await session.fetch(arg);
      console.log(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), body: await res.json(), profile: session.profile, baseUrl: session.baseUrl }));
    }
  }
} catch (err) {
  if (!(err instanceof SchoolError)) throw err;
  console.log(JSON.stringify({ code: err.code, exitCode: err.exitCode, hint: err.hint ?? null }));
  process.exitCode = 3;
}
`;

/** A fresh project directory where `school` is installed (linked to this checkout) and a script uses it. */
function scriptProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'school-library-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO, join(dir, 'node_modules', 'school'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'uses-school', private: true, type: 'module' }));
  writeFileSync(join(dir, 'script.mjs'), SCRIPT);
  return dir;
}

const project = scriptProject();
const runScript = (args: string[], env: Env) => spawnNode([join(project, 'script.mjs'), ...args], env, { cwd: project }).done;

async function login(env: Env) {
  expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl], env));
}

describe('the library beside the command line', () => {
  it('imports without touching the configuration, and says how to log in when there is no session', async () => {
    const env = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
    const imported = await runScript(['import'], env);
    expect(imported).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(env.SCHOOL_CONFIG_DIR)).toBe(false);
    const res = await runScript(['token'], env);
    expect(res.code).toBe(3);
    expect(JSON.parse(res.stdout)).toEqual({ code: 'not_logged_in', exitCode: 4, hint: `school login --base-url ${sandbox.baseUrl}` });
  });

  it("uses the command line's login: the same token, the API, who is logged in", async () => {
    const env = userEnv();
    await login(env);
    const cliToken = expectSuccess(await runSchool(['token'], env)).stdout.trim();
    const libToken = expectSuccess(await runScript(['token'], env)).stdout.trim();
    expect(libToken).toBe(cliToken);
    const fetched = JSON.parse(expectSuccess(await runScript(['fetch', '/api/courses'], env)).stdout);
    expect(fetched).toMatchObject({ status: 200, profile: 'default', baseUrl: sandbox.baseUrl });
    expect(fetched.type).toContain('application/json');
    const viaCli = JSON.parse(expectSuccess(await runSchool(['call', '/api/courses'], env)).stdout);
    expect(fetched.body).toEqual(viaCli);
    const claims = JSON.parse(expectSuccess(await runScript(['whoami'], env)).stdout);
    const cliClaims = JSON.parse(expectSuccess(await runSchool(['whoami', '--json'], env)).stdout);
    expect(claims).toEqual(cliClaims);
    expect(claims.sub).toEqual(expect.any(String));
  });

  it('sees the refresh the command line made, and the command line sees the one it made', async () => {
    const env = userEnv();
    await login(env);
    await waitForRefreshWindow();
    const before = refreshGrants(sandbox).length;
    const byLibrary = expectSuccess(await runScript(['token'], env)).stdout.trim();
    expect(refreshGrants(sandbox).length).toBe(before + 1);
    expect(expectSuccess(await runSchool(['token'], env)).stdout.trim()).toBe(byLibrary);
    expect(refreshGrants(sandbox).length).toBe(before + 1);

    await waitForRefreshWindow();
    const byCli = expectSuccess(await runSchool(['token'], env)).stdout.trim();
    expect(byCli).not.toBe(byLibrary);
    expect(refreshGrants(sandbox).length).toBe(before + 2);
    expect(expectSuccess(await runScript(['token'], env)).stdout.trim()).toBe(byCli);
    expect(refreshGrants(sandbox).length).toBe(before + 2);
    expect(refreshGrants(sandbox).slice(before).every((e) => e.ok === true)).toBe(true);
  });

  it('eight processes, command line and library mixed, on an expired token make exactly one refresh grant', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', longLived.baseUrl, '--insecure-storage'], env));
    // The stored access token made to have expired ten seconds ago (the file store is plain JSON).
    const file = join(env.SCHOOL_CONFIG_DIR, 'credentials.json');
    const shape = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> };
    const [account, stored] = Object.entries(shape.entries).find(([name]) => name.includes('default')) ?? [];
    if (!account || !stored) throw new Error(`no token set of the default profile in ${file}`);
    const expired = JSON.parse(stored) as { expiresAt: number; accessToken: string };
    expired.expiresAt = Math.floor(Date.now() / 1000) - 10;
    shape.entries[account] = JSON.stringify(expired);
    writeFileSync(file, JSON.stringify(shape), { mode: 0o600 });

    const before = refreshGrants(longLived).length;
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? runScript(['token'], env) : runSchool(['token'], env))));
    for (const r of runs) expectSuccess(r);
    const tokens = new Set(runs.map((r) => r.stdout));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(`${expired.accessToken}\n`);
    expect(refreshGrants(longLived).length).toBe(before + 1);
    expect(refreshGrants(longLived).at(-1)?.ok).toBe(true);
  });

  it("runs the README's example as it is printed there", async () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Using `school` from Node'));
    const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    if (!example) throw new Error('the README has no js example under "Using `school` from Node"');
    writeFileSync(join(project, 'report.mjs'), example);
    const env = userEnv();
    const notYet = await spawnNode([join(project, 'report.mjs')], env, { cwd: project }).done;
    expect(notYet.code).toBe(4);
    expect(notYet.stderr).toMatch(/Not logged in\.[^]*school login/);
    // Its token must last the ten minutes it asks for.
    expectSuccess(await runSchool(['login', '--base-url', longLived.baseUrl], env));
    const res = await spawnNode([join(project, 'report.mjs')], env, { cwd: project }).done;
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^200 /);
    expect(res.stderr).toBe('');
  });

  it('type-checks under strict, from the declarations in the package', async () => {
    writeFileSync(
      join(project, 'check.ts'),
      [
        "import { openSession, SchoolError, type Session } from 'school';",
        'const session: Session = await openSession({ profile: "default", anonymous: false });',
        'const res: Response = await session.fetch("/api/courses", { method: "GET" });',
        'const token: string = await session.token({ minTtl: 60 });',
        'const claims: Record<string, unknown> = await session.whoami();',
        'const e = new SchoolError("x", { code: "not_logged_in", exitCode: 4 });',
        'const code: "not_logged_in" | string = e.code;',
        'export { res, token, claims, code };',
        '// @ts-expect-error: minTtl is a number of seconds',
        'await session.token({ minTtl: "60" });',
      ].join('\n'),
    );
    // No @types of any kind: the declarations stand on the language's own library.
    const compilerOptions = { strict: true, noEmit: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [] };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const res = await spawnNode([tsc, '-p', 'tsconfig.json'], { PATH: process.env.PATH }, { cwd: project }).done;
    expect(res.stdout + res.stderr).toBe('');
    expect(res.code).toBe(0);
  });
});
