import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { REPO, SCHOOL_BIN, expectSuccess, runAsAgent, useSandbox, userEnv } from './harness.js';

const sandbox = useSandbox();
const doc = readFileSync(join(REPO, 'docs', 'agents.md'), 'utf8');

/** The fenced blocks of docs/agents.md under a heading, with their info strings. */
function blocksUnder(heading: string): Array<{ info: string; body: string }> {
  const section = doc.split(/^## /m).find((s) => s.startsWith(`${heading}\n`));
  expect(section, heading).toBeDefined();
  return [...section!.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ info: m[1], body: m[2] }));
}

/** A command line split into argv as a POSIX shell would, for the plain words and quotes these snippets use. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

/** The subset of TOML the Codex snippet uses: [table] headers and key = value lines, values as basic strings or arrays of them. */
function smallToml(text: string): Record<string, Record<string, unknown>> {
  const tables: Record<string, Record<string, unknown>> = {};
  let current: Record<string, unknown> | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const header = /^\[([A-Za-z0-9_.-]+)\]$/.exec(line);
    if (header) {
      current = tables[header[1]] = {};
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    expect(pair, line).not.toBeNull();
    expect(current, 'a key before any table').toBeDefined();
    // TOML basic strings and arrays of them are JSON here (no escapes beyond JSON's, no trailing commas).
    current![pair![1]] = JSON.parse(pair![2]);
  }
  return tables;
}

/** The school URL the snippets show, for the reader to replace with theirs. */
const DOCS_SCHOOL = 'https://your-school.example';

/**
 * Starts the server a host would start from `command` and `args` (`school` being the built CLI,
 * the docs' school URL the sandbox's), with nothing else to go on: no login, no SCHOOL_* variable.
 * It lists its tools, and a first call hands out a sign-in for the sandbox, as the docs promise.
 */
async function serverStarts(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  expect(command).toBe('school');
  expect(args[0]).toBe('mcp');
  expect(args.slice(args.indexOf('--base-url'), args.indexOf('--base-url') + 2)).toEqual(['--base-url', DOCS_SCHOOL]);
  const env = userEnv(extraEnv);
  const asRun = args.map((a) => (a === DOCS_SCHOOL ? sandbox.baseUrl : a));
  const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, ...asRun], env: env as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'docs-host', version: '1.0.0' });
  await client.connect(transport);
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['school_call', 'school_whoami']));
    const first = await client.callTool({ name: 'school_whoami', arguments: {} });
    const signIn = (first.structuredContent as { sign_in?: { url: string; status: string } }).sign_in;
    expect(signIn?.status).toBe('started');
    expect(new URL(signIn!.url).origin).toBe(new URL(sandbox.issuer).origin);
  } finally {
    await client.close();
    // The sign-in handed out outlives the server: ended here, as the person would with logout.
    expectSuccess(await runAsAgent(['logout'], env));
  }
}

describe('docs/agents.md: each host snippet, read as that host reads it, starts a working school mcp', () => {
  it("Claude Code: `claude mcp add --scope user <name> -- <command> <args…>`, and `claude -p` allowing that server's tools", async () => {
    const [add, oneShot] = blocksUnder('Claude Code');
    const argv = shellWords(add.body.trim());
    expect(argv.slice(0, 3)).toEqual(['claude', 'mcp', 'add']);
    const dashes = argv.indexOf('--');
    expect(dashes).toBeGreaterThan(3);
    const options = argv.slice(3, dashes);
    expect(options.slice(options.indexOf('--scope'), options.indexOf('--scope') + 2)).toEqual(['--scope', 'user']);
    const name = options.at(-1);
    expect(name).toBe('school');
    // `claude -p` runs a tool only where a rule allows it: `mcp__<name>` allows every tool of that server.
    const p = shellWords(oneShot.body.trim());
    expect(p.slice(0, 2)).toEqual(['claude', '-p']);
    expect(p[p.indexOf('--allowedTools') + 1]).toBe(`mcp__${name}`);
    await serverStarts(argv[dashes + 1], argv.slice(dashes + 2));
    expect(doc).toContain('~/.claude/skills');
  });

  it('VS Code: .vscode/mcp.json with "servers"', async () => {
    const [block] = blocksUnder('VS Code');
    expect(block.info).toBe('json');
    const config = JSON.parse(block.body) as { servers: Record<string, { type: string; command: string; args: string[] }> };
    expect(Object.keys(config)).toEqual(['servers']);
    const server = config.servers.school;
    expect(server.type).toBe('stdio');
    await serverStarts(server.command, server.args);
  });

  it('Cursor: ~/.cursor/mcp.json with "mcpServers"', async () => {
    const [block] = blocksUnder('Cursor');
    const config = JSON.parse(block.body) as { mcpServers: Record<string, { command: string; args: string[] }> };
    expect(Object.keys(config)).toEqual(['mcpServers']);
    await serverStarts(config.mcpServers.school.command, config.mcpServers.school.args);
  });

  it('Codex: [mcp_servers.school] in ~/.codex/config.toml, passing both session bus variables on for the keychain', async () => {
    const [block] = blocksUnder('Codex');
    expect(block.info).toBe('toml');
    const tables = smallToml(block.body);
    const server = tables['mcp_servers.school'] as { command: string; args: string[]; env_vars: string[] };
    expect(server.env_vars).toEqual(['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR']);
    expect(doc).toContain('school skill --install ~/.codex/skills');
    // Codex passes on only the variables named (and a few of its own): the server starts with those.
    const passed = Object.fromEntries(server.env_vars.filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
    await serverStarts(server.command, server.args, passed);
    expect(doc).toMatch(/~\/\.codex\/config\.toml/);
  });

  it('the skill: the runnable block works with no login, from the base URL alone', async () => {
    const [block] = blocksUnder('The Agent Skill');
    expect(block.info).toBe('sh runnable');
    const env = userEnv({ SCHOOL_BASE_URL: sandbox.baseUrl });
    const lines = block.body.trim().split('\n');
    const install = shellWords(lines[0].replace('$SCHOOL_CONFIG_DIR', env.SCHOOL_CONFIG_DIR));
    expect(install.slice(0, 3)).toEqual(['school', 'skill', '--install']);
    const res = expectSuccess(await runAsAgent(install.slice(1), env));
    expect(res.stdout.trim()).toBe(join(env.SCHOOL_CONFIG_DIR, 'skills', 'school', 'SKILL.md'));
    const head = execFileSync('head', ['-n', '4', res.stdout.trim()], { encoding: 'utf8' }).split('\n');
    expect(head.slice(0, 2)).toEqual(['---', 'name: school']);
  });
});
