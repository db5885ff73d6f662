import { lstatSync, mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { driveLogin } from '@school/sandbox/browser-driver';
import { expectSuccess, runAsAgent, useSandbox, userEnv } from './harness.js';
import { shellWords } from '../helpers/described-server.js';

const sandbox = useSandbox();

/** The front matter of a SKILL.md: the YAML between the first two `---` lines, read as the agentskills format has it (one key per line). */
function frontMatter(text: string): Record<string, string> {
  const lines = text.split('\n');
  expect(lines[0]).toBe('---');
  const end = lines.indexOf('---', 1);
  expect(end).toBeGreaterThan(1);
  const out: Record<string, string> = {};
  for (const line of lines.slice(1, end)) {
    const m = /^([a-z][a-z0-9_-]*):\s(.*)$/.exec(line);
    expect(m, line).not.toBeNull();
    // A double-quoted YAML scalar is a JSON string here; a plain one is taken as it is.
    out[m![1]] = m![2].startsWith('"') ? (JSON.parse(m![2]) as string) : m![2];
  }
  return out;
}

/** Every `school …` command the skill shows in a code span. */
function commandsShown(text: string): string[] {
  return [...new Set([...text.matchAll(/`(school [^`]+)`/g)].map((m) => m[1]))];
}

describe('school skill', () => {
  it('prints a SKILL.md whose front matter parses and whose every command runs against the sandbox', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl], env));
    const res = expectSuccess(await runAsAgent(['skill'], env));
    const meta = frontMatter(res.stdout);
    expect(meta.name).toBe('school');
    expect(meta.description).toMatch(/Use when/);
    expect(res.stdout).toContain('school status --json');
    expect(res.stdout).toMatch(/`school token` is for other programs/);
    expect(res.stdout).toMatch(/only when the person asked/);
    // The same names as `school api`.
    const listed = JSON.parse(expectSuccess(await runAsAgent(['api', '--json'], env)).stdout) as Array<{ command: string; method: string; path: string; scopes: string[] }>;
    for (const op of listed.slice(0, 40)) expect(res.stdout).toMatch(new RegExp(`\`school api ${op.command}[ \`]`));
    expect(res.stdout).toContain("Server's description: “");

    const commands = commandsShown(res.stdout);
    expect(commands.length).toBeGreaterThan(listed.length);
    const byCommand = new Map(listed.map((op) => [op.command, op]));
    const ran: string[] = [];
    for (const shown of commands) {
      // Placeholders and elided parts are a pattern, not a command.
      if (/[<…]/.test(shown) || shown.includes('$(')) continue;
      const argv = shellWords(shown).slice(1);
      if (argv[0] === 'login') continue; // its own test below: it waits for a browser
      const op = argv[0] === 'api' && argv[1] ? byCommand.get(argv[1]) : undefined;
      // An operation that needs path arguments, or writes, is run dry: its example passes the checks, nothing is sent.
      const runnable = op && (op.path.includes('{') || (op.method !== 'GET' && op.method !== 'HEAD')) ? [...argv, '--dry-run'] : argv;
      const out = await runAsAgent(runnable, env);
      expect(out.code, `${runnable.join(' ')}: ${out.stderr}`).toBe(0);
      ran.push(runnable.join(' '));
    }
    expect(ran.filter((c) => c.startsWith('api ')).length).toBeGreaterThanOrEqual(listed.length);
    expect(ran).toContain('status --json');
  });

  it('shows the two-step login, and it works as shown for an agent', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl], env));
    const text = expectSuccess(await runAsAgent(['skill'], env)).stdout;
    const login = commandsShown(text).filter((c) => c.startsWith('school login'));
    expect(login).toEqual(expect.arrayContaining(['school login --no-wait', 'school login --wait']));
    const started = expectSuccess(await runAsAgent(['login', '--no-wait', '--json'], env));
    await driveLogin((JSON.parse(started.stdout) as { url: string }).url);
    expectSuccess(await runAsAgent(['login', '--wait'], env));
  });

  it("--install writes <dir>/school/SKILL.md 0644, prints its path, replaces its own file and leaves anyone else's alone", async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl], env));
    const dir = mkdtempSync(join(tmpdir(), 'school-skills-'));
    const file = join(dir, 'school', 'SKILL.md');
    const first = expectSuccess(await runAsAgent(['skill', '--install', dir], env));
    expect(first.stdout).toBe(`${file}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(frontMatter(readFileSync(file, 'utf8')).name).toBe('school');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nstale line\n`);
    expectSuccess(await runAsAgent(['skill', '--install', dir], env));
    expect(readFileSync(file, 'utf8')).not.toContain('stale line');

    const other = mkdtempSync(join(tmpdir(), 'school-skills-'));
    mkdirSync(join(other, 'school'));
    writeFileSync(join(other, 'school', 'SKILL.md'), '---\nname: school\ndescription: my own\n---\nMine.\n');
    const refused = await runAsAgent(['skill', '--install', other], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/not written by `school skill`/);
    expect(readFileSync(join(other, 'school', 'SKILL.md'), 'utf8')).toContain('Mine.');
  });
  it('--install writes nothing through links planted in the folder: a linked school folder, a linked SKILL.md, a linked temporary name', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl], env));
    const outside = mkdtempSync(join(tmpdir(), 'school-outside-'));
    const victim = join(outside, 'victim');
    writeFileSync(victim, 'precious\n', { mode: 0o600 });
    const untouched = () => {
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
      expect(statSync(victim).mode & 0o777).toBe(0o600);
      expect(readdirSync(outside)).toEqual(['victim']);
    };

    const linkedFolder = mkdtempSync(join(tmpdir(), 'school-skills-'));
    symlinkSync(outside, join(linkedFolder, 'school'));
    const refusedFolder = await runAsAgent(['skill', '--install', linkedFolder], env);
    expect(refusedFolder.code).toBe(2);
    expect(refusedFolder.stderr).toMatch(/school is a symbolic link/);
    untouched();

    const linkedFile = mkdtempSync(join(tmpdir(), 'school-skills-'));
    mkdirSync(join(linkedFile, 'school'));
    symlinkSync(victim, join(linkedFile, 'school', 'SKILL.md'));
    const refusedFile = await runAsAgent(['skill', '--install', linkedFile], env);
    expect(refusedFile.code).toBe(2);
    expect(refusedFile.stderr).toMatch(/SKILL\.md is a symbolic link/);
    untouched();

    // The process id of the next process is guessable: links under every name near it.
    const linkedTemp = mkdtempSync(join(tmpdir(), 'school-skills-'));
    mkdirSync(join(linkedTemp, 'school'));
    for (let pid = process.pid; pid < process.pid + 400; pid++) symlinkSync(victim, join(linkedTemp, 'school', `SKILL.md.${pid}.tmp`));
    const written = expectSuccess(await runAsAgent(['skill', '--install', linkedTemp], env));
    const file = join(linkedTemp, 'school', 'SKILL.md');
    expect(written.stdout).toBe(`${file}\n`);
    expect(lstatSync(file).isFile()).toBe(true);
    expect(frontMatter(readFileSync(file, 'utf8')).name).toBe('school');
    untouched();
  });
});
