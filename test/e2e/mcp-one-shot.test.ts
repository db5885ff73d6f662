import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Env, SCHOOL_BIN, expectSuccess, runAsAgent, spawnNode, useSandbox, userEnv, processAlive } from './harness.js';

const sandbox = useSandbox();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const text = (res: Record<string, unknown>) => ((res.content ?? []) as Array<{ text: string }>).map((c) => c.text).join('\n');

/**
 * One run of a one-shot host (`claude -p`, `codex exec`): it starts `school mcp`, makes its calls,
 * then stops the server as such hosts do: SIGINT, then stdin closed.
 */
async function oneShotRun(env: Env, args: string[], host: { elicitation?: 'decline' | 'accept' } = {}) {
  let stderr = '';
  const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', ...args], env: env as Record<string, string>, stderr: 'pipe' });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'one-shot-host', version: '1.0.0' }, { capabilities: host.elicitation ? { elicitation: { url: {} } } : {} });
  const elicited: string[] = [];
  if (host.elicitation) {
    // `codex exec` declares URL elicitation and declines every request; an interactive host accepts (shows the URL).
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(String((request.params as { url?: string }).url));
      return { action: host.elicitation! };
    });
  }
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    elicited,
    stderr: () => stderr,
    instructions: () => client.getInstructions() ?? '',
    async stop() {
      process.kill(pid, 'SIGINT');
      await client.close();
      for (let i = 0; i < 100 && processAlive(pid); i++) await sleep(50);
      expect(processAlive(pid)).toBe(false);
    },
  };
}

const signInOf = (res: Record<string, unknown>) => (res.structuredContent as { sign_in?: { url: string; status: string } }).sign_in;
const auditLines = (env: Env) => {
  const file = join(env.SCHOOL_CONFIG_DIR!, 'state', 'audit.jsonl');
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
};
/** `status --json` (it exits 1 while a profile has only a pending login: its rows are read all the same). */
const statusRows = async (env: Env) => JSON.parse((await runAsAgent(['status', '--json'], env)).stdout) as Array<Record<string, unknown>>;

/**
 * The person's side of a one-shot run: approve in the browser once the server is gone, then a new
 * run of the host gets data from the same call.
 */
async function approveAfterwardsAndCallAgain(env: Env, url: string, args: string[]) {
  await driveLogin(url);
  // The detached listener stores the tokens just after the browser's redirect.
  for (let i = 0; i < 100 && !(await statusRows(env))[0]?.user; i++) await sleep(100);
  const next = await oneShotRun(env, args);
  try {
    const res = await next.client.callTool({ name: 'listCourses', arguments: {} });
    expect(text(res)).toContain('HTTP 200');
    expect(res.structuredContent).toMatchObject({ status: 200, body: { anonymous: false } });
  } finally {
    await next.stop();
  }
  expect((await statusRows(env))[0]).toMatchObject({ profile: 'default', user: { name: 'Ada Lovelace' }, pending_login: null });
}

describe('school mcp in a one-shot host: the sign-in it hands out outlives it', () => {
  it('a host without elicitation: URL from the first run, server stopped, approved afterwards, the next run gets data', async () => {
    const env = userEnv();
    const args = ['--base-url', sandbox.baseUrl, '--toolsets', 'courses'];
    const first = await oneShotRun(env, args);
    const res = await first.client.callTool({ name: 'listCourses', arguments: {} });
    expect(res.isError).toBe(true);
    const signIn = signInOf(res)!;
    expect(signIn.status).toBe('started');
    expect(new URL(signIn.url).origin).toBe(new URL(sandbox.issuer).origin);
    await first.stop();
    expect(first.stderr()).toBe('');

    // The server is gone; its sign-in is not: status shows it, with its URL.
    const pending = (await statusRows(env))[0].pending_login as { url: string; expires_at: number };
    expect(pending.url).toBe(signIn.url);
    const record = JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR!, 'state', 'pending', 'default.json'), 'utf8')) as { listenerPid: number };
    expect(processAlive(record.listenerPid)).toBe(true);
    expect(auditLines(env)).toEqual([expect.objectContaining({ tool: 'listCourses', status: null, refused: 'not_logged_in', sign_in: 'started' })]);

    // Another one-shot run before the person approved: the same URL, still waiting, no second listener.
    const second = await oneShotRun(env, args);
    const again = await second.client.callTool({ name: 'listCourses', arguments: {} });
    await second.stop();
    expect(signInOf(again)).toMatchObject({ url: signIn.url, status: 'waiting' });
    expect(auditLines(env).at(-1)).toMatchObject({ sign_in: 'waiting' });

    await approveAfterwardsAndCallAgain(env, signIn.url, args);
    // Its work done, the listener ends.
    for (let i = 0; i < 100 && processAlive(record.listenerPid); i++) await sleep(50);
    expect(processAlive(record.listenerPid)).toBe(false);
  });

  it('a host that declares URL elicitation and declines it (codex exec): the URL in the result all the same, approved after the server stopped', async () => {
    const env = userEnv();
    const args = ['--base-url', sandbox.baseUrl, '--toolsets', 'courses'];
    const first = await oneShotRun(env, args, { elicitation: 'decline' });
    const res = await first.client.callTool({ name: 'listCourses', arguments: {} });
    expect(res.isError).toBe(true);
    const signIn = signInOf(res)!;
    expect(first.elicited).toEqual([signIn.url]);
    expect(signIn.status).toBe('started');
    expect(text(res)).toContain(signIn.url);
    expect(text(res)).toMatch(/call this tool again/);
    await first.stop();
    await approveAfterwardsAndCallAgain(env, signIn.url, args);
  });
});

describe('a host that took the URL through elicitation and stopped before the person approved', () => {
  it('the sign-in completes after the server is gone, and the next run gets data', async () => {
    const env = userEnv();
    const args = ['--base-url', sandbox.baseUrl, '--toolsets', 'courses'];
    const first = await oneShotRun(env, args, { elicitation: 'accept' });
    // The call waits for the browser; the host stops the server meanwhile.
    const call = first.client.callTool({ name: 'listCourses', arguments: {} }, undefined, { timeout: 60_000 }).catch(() => undefined);
    for (let i = 0; i < 200 && !first.elicited.length; i++) await sleep(50);
    expect(first.elicited).toHaveLength(1);
    await first.stop();
    await call;
    expect((await statusRows(env))[0].pending_login).toMatchObject({ url: first.elicited[0] });
    await approveAfterwardsAndCallAgain(env, first.elicited[0], args);
  });
});

describe('URL elicitation only where the negotiated revision has it', () => {
  it('a host on 2025-06-18 that declares URL elicitation is never sent elicitation/create: the URL comes in the result', async () => {
    const env = userEnv();
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: { url: {} } }, clientInfo: { name: 'older-host', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'school_whoami', arguments: {} } },
    ];
    const res = await spawnNode([SCHOOL_BIN, 'mcp', '--base-url', sandbox.baseUrl], env, { input: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n` }).done;
    expect(res.code).toBe(0);
    const messages = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; method?: string; result?: { protocolVersion?: string; structuredContent?: { sign_in?: { url: string } } } });
    expect(messages.find((m) => m.id === 1)?.result?.protocolVersion).toBe('2025-06-18');
    expect(messages.filter((m) => m.method === 'elicitation/create')).toEqual([]);
    const url = messages.find((m) => m.id === 2)?.result?.structuredContent?.sign_in?.url;
    expect(new URL(url!).origin).toBe(new URL(sandbox.issuer).origin);
    // The sign-in outlives the server; the person ends it here.
    expectSuccess(await runAsAgent(['logout'], env));
  });
});

describe('school mcp with nothing to go on starts, and says what to do', () => {
  it('no login and no --base-url: it starts, nothing on stderr, and each result names --base-url and the login, no placeholder URL', async () => {
    const env = userEnv();
    const run = await oneShotRun(env, []);
    try {
      expect(run.instructions()).toMatch(/no school is known/);
      expect((await run.client.listTools()).tools.map((t) => t.name)).toEqual(['school_call', 'school_whoami']);
      for (const name of ['school_call', 'school_whoami']) {
        const res = await run.client.callTool({ name, arguments: { path: '/api/courses' } });
        expect(res.isError).toBe(true);
        expect(text(res)).toContain('--base-url');
        expect(text(res)).toContain('`school login --base-url` followed by the school');
        expect(text(res)).not.toMatch(/https?:\/\//);
      }
    } finally {
      await run.stop();
    }
    expect(run.stderr()).toBe('');
  });

  it('--profile naming no profile yet: it starts, and its instructions and results say so (with the near name), not exit 4', async () => {
    const env = userEnv();
    expectSuccess(await runAsAgent(['login', '--base-url', sandbox.baseUrl, '--profile', 'wrk'], env));
    const run = await oneShotRun(env, ['--profile', 'work']);
    try {
      expect(run.instructions()).toContain('There is no profile "work" yet (did you mean "wrk"?)');
      const res = await run.client.callTool({ name: 'school_whoami', arguments: {} });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('There is no profile "work" yet');
      expect(text(res)).toContain('`school login --profile work --base-url` followed by the school');
    } finally {
      await run.stop();
    }
    expect(run.stderr()).toBe('');
  });

  it('--profile naming no profile yet, with --base-url: the first call hands out the sign-in that creates it', async () => {
    const env = userEnv();
    const run = await oneShotRun(env, ['--profile', 'work', '--base-url', sandbox.baseUrl, '--toolsets', 'courses']);
    let url: string;
    try {
      expect(run.instructions()).toContain(`There is no profile "work" yet: the first tool call hands out a sign-in link for ${sandbox.baseUrl}`);
      const res = await run.client.callTool({ name: 'listCourses', arguments: {} });
      expect(text(res)).toContain('There is no profile "work" yet');
      url = signInOf(res)!.url;
    } finally {
      await run.stop();
    }
    await driveLogin(url);
    for (let i = 0; i < 100 && !(await statusRows(env)).find((r) => r.profile === 'work')?.user; i++) await sleep(100);
    expect((await statusRows(env)).find((r) => r.profile === 'work')).toMatchObject({ base_url: sandbox.baseUrl, user: { name: 'Ada Lovelace' } });
  });
});
