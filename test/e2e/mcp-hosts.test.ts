import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type Env, SCHOOL_BIN, expectSuccess, runAsAgent, useSandbox, userEnv, withoutKeychain } from './harness.js';

const sandbox = useSandbox();

/** `school mcp` as a host that declares no capabilities at all starts it. */
async function host(env: Env, args: string[]) {
  let stderr = '';
  const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', ...args], env: env as Record<string, string>, stderr: 'pipe' });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'bare-host', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const text = (res: Record<string, unknown>) => ((res.content ?? []) as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('school mcp, the rough edges real hosts showed', () => {
  it('--base-url for another school without --profile gets the hint the CLI gives', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl], env));
    const other = 'http://127.0.0.1:9';
    const cli = await runAsAgent(['whoami', '--base-url', other], env);
    expect(cli.stderr).toMatch(/Use another --profile for a second school/);
    const { client } = await host(env, ['--base-url', other]);
    try {
      const res = await client.callTool({ name: 'school_call', arguments: { path: '/api/courses' } });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain(`logged in to ${sandbox.baseUrl}, not ${other}`);
      expect(text(res)).toMatch(/Use another --profile for a second school/);
    } finally {
      await client.close();
    }
  });

  it('a host that starts it without the session bus gets an error result naming both variables to pass on, and how', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl], env));
    // As Codex with `env_vars = ["DBUS_SESSION_BUS_ADDRESS"]` where the shell has only XDG_RUNTIME_DIR: neither reaches the server.
    const trimmed = withoutKeychain(env);
    delete trimmed.XDG_RUNTIME_DIR;
    const { client, stderr } = await host(trimmed, ['--toolsets', 'courses']);
    try {
      const res = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(res.isError).toBe(true);
      expect(text(res)).toMatch(/keychain/i);
      expect(text(res)).toContain('without DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR');
      expect(text(res)).toContain('env_vars = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]');
    } finally {
      await client.close();
    }
    expect(stderr()).toBe('');
  });

  it('with no server known yet, the tools offered are the ones the instructions name: school_operations answers that it is not offered', async () => {
    const env = userEnv();
    const { client } = await host(env, []);
    try {
      for (let i = 0; i < 3; i++) expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['school_call', 'school_whoami']);
      const res = await client.callTool({ name: 'school_operations', arguments: {} });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('school_operations is not offered');
    } finally {
      await client.close();
    }
  });

  it('--profile work with no such profile starts all the same: its results say so, with the near name, and stderr stays empty', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl, '--profile', 'wrk'], env));
    const { client, stderr } = await host(env, ['--profile', 'work']);
    try {
      expect(client.getInstructions()).toContain('There is no profile "work" yet (did you mean "wrk"?)');
      const res = await client.callTool({ name: 'school_call', arguments: { path: '/api/courses' } });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('There is no profile "work" yet (did you mean "wrk"?)');
    } finally {
      await client.close();
    }
    expect(stderr()).toBe('');
  });
});
