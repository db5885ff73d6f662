import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Env, REPO, expectSuccess, expire, login as loginTo, refreshGrants, runSchool, spawnNode, useSandbox, userEnv } from './harness.js';

// The library as a script in a fresh directory uses it: `import { openSession } from 'school'`,
// resolved through the package's exports, in a process of its own beside the command line.
// Tokens last an hour: one refresh serves every process, however slow the machine, and a test
// makes a token due with expire() instead of waiting.
const sandbox = useSandbox();

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

const login = (env: Env) => loginTo(env, sandbox);

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
    await expire(env);
    const before = refreshGrants(sandbox).length;
    const byLibrary = expectSuccess(await runScript(['token'], env)).stdout.trim();
    expect(refreshGrants(sandbox).length).toBe(before + 1);
    expect(expectSuccess(await runSchool(['token'], env)).stdout.trim()).toBe(byLibrary);
    expect(refreshGrants(sandbox).length).toBe(before + 1);

    await expire(env);
    const byCli = expectSuccess(await runSchool(['token'], env)).stdout.trim();
    expect(byCli).not.toBe(byLibrary);
    expect(refreshGrants(sandbox).length).toBe(before + 2);
    expect(expectSuccess(await runScript(['token'], env)).stdout.trim()).toBe(byCli);
    expect(refreshGrants(sandbox).length).toBe(before + 2);
    expect(
      refreshGrants(sandbox)
        .slice(before)
        .every((e) => e.ok === true),
    ).toBe(true);
  });

  it('eight processes, command line and library mixed, on an expired token make exactly one refresh grant', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage'], env));
    const expired = await expire(env);

    const before = refreshGrants(sandbox).length;
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? runScript(['token'], env) : runSchool(['token'], env))));
    for (const r of runs) expectSuccess(r);
    const tokens = new Set(runs.map((r) => r.stdout));
    expect(tokens.size).toBe(1);
    expect([...tokens][0]).not.toBe(`${expired.accessToken}\n`);
    expect(refreshGrants(sandbox).length).toBe(before + 1);
    expect(refreshGrants(sandbox).at(-1)?.ok).toBe(true);
  });

  // The library's examples, as the documentation prints them: the README's, and docs/library.md's.
  const examples: Array<[string, string]> = [
    ['README.md', '## From Node'],
    ['docs/library.md', '# The Node library'],
  ];
  for (const [file, heading] of examples) {
    it(`runs the example of ${file} as it is printed there`, async () => {
      const text = readFileSync(join(REPO, file), 'utf8');
      const start = text.indexOf(`${heading}`);
      if (start < 0) throw new Error(`${file} has no section "${heading}"`);
      const example = /```js\n([\s\S]*?)```/.exec(text.slice(start))?.[1];
      if (!example) throw new Error(`${file} has no js example under "${heading}"`);
      writeFileSync(join(project, 'report.mjs'), example);
      const env = userEnv();
      const notYet = await spawnNode([join(project, 'report.mjs')], env, { cwd: project }).done;
      expect(notYet.code).toBe(4);
      expect(notYet.stderr).toMatch(/Not logged in\.[\s\S]*school login/);
      expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl], env));
      const res = await spawnNode([join(project, 'report.mjs')], env, { cwd: project }).done;
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^200 /);
    });
  }

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
