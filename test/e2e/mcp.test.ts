import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Sandbox, startSandbox } from '@school/sandbox';
import { type Env, REPO, SCHOOL_BIN, expectSuccess, runSchool, userEnv } from './harness.js';
import { WireClient } from '../helpers/mcp-wire.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ quiet: true });
});
afterAll(async () => {
  await sandbox?.close();
});

const apiEvents = (sb: Sandbox) => sb.events.filter((e) => e.type === 'api');
const refreshGrants = (sb: Sandbox) => sb.events.filter((e) => e.type === 'token' && e.grant_type === 'refresh_token');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything a host and the server said to each other, and what the server wrote on stderr, for the secret scan. */
interface Recording {
  messages: string[];
  stderr: () => string;
}

/** A transport that keeps every message both ways, around the SDK's stdio client transport. */
class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  constructor(
    private readonly inner: StdioClientTransport,
    private readonly messages: string[],
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (m) => {
      this.messages.push(JSON.stringify(m));
      this.onmessage?.(m);
    };
  }

  start() {
    return this.inner.start();
  }

  send(message: JSONRPCMessage) {
    this.messages.push(JSON.stringify(message));
    return this.inner.send(message);
  }

  close() {
    return this.inner.close();
  }
}

/** `school mcp` spawned as a host spawns it, driven by the SDK's own Client. */
async function connectSdkClient(env: Env, args: string[] = [], options: { elicitUrl?: (url: string) => void } = {}) {
  const messages: string[] = [];
  let stderr = '';
  const inner = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', ...args], env: env as Record<string, string>, stderr: 'pipe' });
  inner.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities: options.elicitUrl ? { elicitation: { url: {} } } : {} });
  if (options.elicitUrl) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode?: string; url?: string };
      if (params.mode !== 'url' || !params.url) return { action: 'decline' };
      options.elicitUrl!(params.url);
      return { action: 'accept' };
    });
  }
  await client.connect(new RecordingTransport(inner, messages));
  const recording: Recording = { messages, stderr: () => stderr };
  return { client, recording };
}

/** The secrets of a login kept in the 0600 file: the access token, the refresh token and the client secret. */
function storedSecrets(env: Env & { SCHOOL_CONFIG_DIR: string }): string[] {
  const file = JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'credentials.json'), 'utf8')) as { entries: Record<string, string> };
  const entry = Object.entries(file.entries).find(([k]) => k.startsWith('profile:default@'))!;
  const set = JSON.parse(entry[1]) as { accessToken: string; refreshToken: string; clientSecret?: string };
  return [set.accessToken, set.refreshToken, set.clientSecret].filter((s): s is string => Boolean(s));
}

/** No secret in any message, in stderr or in the audit log. */
function expectNoSecrets(env: Env & { SCHOOL_CONFIG_DIR: string }, recordings: Recording[], secrets: string[]) {
  expect(secrets.length).toBeGreaterThanOrEqual(3); // access token, refresh token, client secret
  const audit = join(env.SCHOOL_CONFIG_DIR, 'state', 'audit.jsonl');
  const texts = [...recordings.flatMap((r) => [...r.messages, r.stderr()]), existsSync(audit) ? readFileSync(audit, 'utf8') : ''];
  expect(texts.join('').length).toBeGreaterThan(0);
  for (const secret of secrets) for (const text of texts) expect(text.includes(secret)).toBe(false);
}

const text = (res: { content: unknown }) => (res.content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('school mcp, driven by the SDK client as a host drives it', () => {
  it('lists the tools, reads through them after a CLI login, refuses a write and sends nothing, and leaks no secret', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--confidential'], env));
    const { client, recording } = await connectSdkClient(env);
    try {
      const tools = (await client.listTools()).tools;
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['listCourses', 'getCourse', 'listLessons', 'listStudents', 'echoGet', 'school_call', 'school_whoami']));
      expect(names).not.toContain('createCourse');
      for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(tools.find((t) => t.name === 'listCourses')).toMatchObject({ annotations: { readOnlyHint: true }, description: expect.stringContaining('courses:read') });

      const courses = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(courses.isError).toBeFalsy();
      expect(text(courses)).toContain('HTTP 200');
      expect(courses.structuredContent).toMatchObject({ anonymous: false, courses: expect.any(Array) });
      const last = apiEvents(sandbox).at(-1)!;
      expect(last).toMatchObject({ method: 'GET', path: '/api/courses', authenticated: true });

      const lessons = await client.callTool({ name: 'listLessons', arguments: {} });
      expect(text(lessons)).toMatch(/HTTP 200 OK \(\d+ pages\)/);

      const who = await client.callTool({ name: 'school_whoami', arguments: {} });
      expect(who.structuredContent).toMatchObject({ claims: { name: 'Ada Lovelace' } });

      const before = apiEvents(sandbox).length;
      const write = await client.callTool({ name: 'school_call', arguments: { method: 'POST', path: '/api/courses', body: { title: 'Sneaky' } } });
      expect(write.isError).toBe(true);
      expect(text(write)).toContain('--allow-write');
      const hidden = await client.callTool({ name: 'createCourse', arguments: { body: { title: 'Sneaky' } } });
      expect(hidden.isError).toBe(true);
      expect(apiEvents(sandbox).length).toBe(before);

      // The audit log: one line per call, 0600, no bodies.
      const audit = join(env.SCHOOL_CONFIG_DIR, 'state', 'audit.jsonl');
      expect(statSync(audit).mode & 0o777).toBe(0o600);
      const lines = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.map((l) => l.tool)).toEqual(['listCourses', 'listLessons', 'school_whoami', 'school_call', 'createCourse']);
      expect(lines[0]).toMatchObject({ profile: 'default', method: 'GET', path: '/api/courses', status: 200 });
      expect(lines[3]).toMatchObject({ method: 'POST', status: null });
      expect(readFileSync(audit, 'utf8')).not.toContain('Sneaky');
    } finally {
      await client.close();
    }
    expectNoSecrets(env, [recording], storedSecrets(env));
    const status = await runSchool(['status'], env);
    expect(status.stdout).toContain(join(env.SCHOOL_CONFIG_DIR, 'state', 'audit.jsonl'));
  });

  it('with --allow-write sends a write', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--scope', 'courses:read courses:write'], env));
    const { client } = await connectSdkClient(env, ['--allow-write']);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('createCourse');
      const created = await client.callTool({ name: 'createCourse', arguments: { body: { title: 'Written by an agent' } } });
      expect(text(created)).toContain('HTTP 201');
      expect(apiEvents(sandbox).at(-1)).toMatchObject({ method: 'POST', path: '/api/courses', status: 201 });
    } finally {
      await client.close();
    }
  });

  it('a missing scope is an error result naming `school login --add-scope <scope>`', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--scope', 'courses:read'], env));
    const { client } = await connectSdkClient(env);
    try {
      const res = await client.callTool({ name: 'listStudents', arguments: {} });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain('school login --add-scope students:read');
    } finally {
      await client.close();
    }
  });

  it('not logged in, a host with URL elicitation gets the login started, the person signs in in the browser, and the call is made', async () => {
    const env = userEnv();
    let browser: Promise<unknown> | undefined;
    const elicited: string[] = [];
    const { client, recording } = await connectSdkClient(env, ['--base-url', sandbox.baseUrl], {
      elicitUrl: (url) => {
        elicited.push(url);
        browser = driveLogin(url);
      },
    });
    try {
      const res = await client.callTool({ name: 'listCourses', arguments: {} }, undefined, { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined });
      expect(text(res)).toContain('HTTP 200');
      expect(res.structuredContent).toMatchObject({ anonymous: false });
      expect(elicited.length).toBe(1);
      expect(new URL(elicited[0]).origin).toBe(new URL(sandbox.issuer).origin);
      await browser;
      // The login is the profile's, as `school login` would have made it.
      expect((await runSchool(['status', '--json'], env)).stdout).toContain('"storage"');
      expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0]).toMatchObject({ profile: 'default', user: { name: 'Ada Lovelace' } });
      const token = expectSuccess(await runSchool(['token'], env)).stdout.trim();
      expect(recording.messages.join('\n')).not.toContain(token);
      expect(recording.stderr()).not.toContain(token);
    } finally {
      await client.close();
    }
  });

  it('not logged in, a host without elicitation gets an error result naming the login command', async () => {
    const env = userEnv();
    const { client } = await connectSdkClient(env, ['--base-url', sandbox.baseUrl]);
    try {
      const res = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain(`school login --base-url ${sandbox.baseUrl}`);
    } finally {
      await client.close();
    }
  });
});

describe('school mcp, with short-lived tokens', () => {
  let shortLived: Sandbox;
  beforeAll(async () => {
    shortLived = await startSandbox({ quiet: true, accessTokenTtl: 3 });
  });
  afterAll(async () => {
    await shortLived?.close();
  });

  it('renews an expired token in the middle of a session and goes on', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', shortLived.baseUrl, '--insecure-storage', '--confidential'], env));
    const { client, recording } = await connectSdkClient(env);
    try {
      const first = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(text(first)).toContain('HTTP 200');
      const before = refreshGrants(shortLived).length;
      await sleep(3500);
      const second = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(text(second)).toContain('HTTP 200');
      expect(second.structuredContent).toMatchObject({ anonymous: false });
      expect(refreshGrants(shortLived).length).toBe(before + 1);
      expect(apiEvents(shortLived).at(-1)).toMatchObject({ authenticated: true });
    } finally {
      await client.close();
    }
    expectNoSecrets(env, [recording], storedSecrets(env));
  });
});

describe('school mcp, driven by a client that is not the SDK', () => {
  it('answers a bare newline-delimited JSON-RPC client: initialize, tools/list, tools/call, and exits 0 when stdin closes', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--confidential'], env));
    const child = spawn(process.execPath, [SCHOOL_BIN, 'mcp'], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const wire = new WireClient(child.stdin, child.stdout);
    const init = await wire.initialize();
    expect(init).toMatchObject({ serverInfo: { name: 'school' }, capabilities: { tools: { listChanged: true } } });
    expect(String(init.instructions)).toContain('Read-only');
    const tools = await wire.listTools();
    expect(tools.map((t) => t.name)).toContain('getCourse');
    const listed = (await wire.callTool('listCourses')).structuredContent as { courses: Array<{ id: string }> };
    const one = await wire.callTool('getCourse', { id: listed.courses[0].id });
    expect(one.isError).toBeUndefined();
    expect(one.structuredContent).toMatchObject({ id: listed.courses[0].id });
    const echoed = await wire.callTool('school_call', { path: '/api/echo', query: { q: 'algebra' } });
    expect(echoed.structuredContent).toMatchObject({ method: 'GET', query: { q: 'algebra' }, authenticated: true });
    // Nothing but protocol messages on stdout.
    for (const line of wire.messages) expect(() => JSON.parse(line)).not.toThrow();
    wire.close();
    expect(await exited).toBe(0);
    expectNoSecrets(env, [{ messages: wire.messages, stderr: () => stderr }], storedSecrets(env));
  });
});

describe('start-up', () => {
  it('`school token` does not load the MCP SDK or the server bundle', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage'], env));
    const loaded = join(env.HOME, 'loaded-modules.txt');
    const probe = join(REPO, 'test', 'helpers', 'loaded-modules.cjs');
    expectSuccess(await runSchool(['token'], { ...env, NODE_OPTIONS: `--require ${probe}`, LOADED_MODULES_FILE: loaded }));
    const modules = readFileSync(loaded, 'utf8').split('\n');
    expect(modules).toContain(SCHOOL_BIN);
    expect(modules.filter((m) => m.includes('modelcontextprotocol') || m.endsWith('mcp.cjs') || m.includes('zod') || m.includes('ajv'))).toEqual([]);
    // dist/cli.cjs itself holds none of the SDK: it lives in dist/mcp.cjs.
    expect(readFileSync(join(REPO, 'dist', 'cli.cjs'), 'utf8')).not.toContain('notifications/tools/list_changed');
  });
});
