import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { driveLogin } from '@school/sandbox/browser-driver';
import { DATA_SCOPES, type Sandbox, startSandbox } from '@school/sandbox';
import { type Env, REPO, SCHOOL_BIN, expectSuccess, pollUntil, preloading, runSchool, spawnNode, stored, userEnv } from './harness.js';
import { WireClient } from '../helpers/mcp-wire.js';
import { describeFindings, toolPortabilityFindings } from '../helpers/tool-portability.js';

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
  // The sandbox describes more than 40 operations: the areas the tests use are offered a tool each.
  // Given a base URL, a test sees the catalogue as the server offers it.
  const offered = args.includes('--toolsets') || args.includes('--base-url') ? args : [...args, '--toolsets', 'courses,students'];
  const inner = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', ...offered], env: env as Record<string, string>, stderr: 'pipe' });
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

const text = (res: Record<string, unknown>) => ((res.content ?? []) as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('school mcp, driven by the SDK client as a host drives it', () => {
  it('lists the tools, reads through them after a CLI login, refuses a write and sends nothing, and leaks no secret', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--confidential'], env));
    // The sandbox describes more than 40 operations: two areas are picked to get a tool each.
    const { client, recording } = await connectSdkClient(env, ['--toolsets', 'courses,students']);
    try {
      const tools = (await client.listTools()).tools;
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['listCourses', 'getCourse', 'listLessons', 'listStudents', 'getStudent', 'school_call', 'school_whoami']));
      expect(names).not.toContain('createCourse');
      expect(names).not.toContain('listMembers');
      for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,48}$/);
      expect(tools.find((t) => t.name === 'listCourses')).toMatchObject({ annotations: { readOnlyHint: true }, description: expect.stringContaining('courses:read') });

      const courses = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(courses.isError).toBeFalsy();
      expect(text(courses)).toContain('HTTP 200');
      expect(courses.structuredContent).toMatchObject({ status: 200, body: { anonymous: false, courses: expect.any(Array) } });
      const last = apiEvents(sandbox).at(-1)!;
      expect(last).toMatchObject({ method: 'GET', path: '/api/courses', authenticated: true });

      const lessons = await client.callTool({ name: 'listLessons', arguments: {} });
      expect(text(lessons)).toMatch(/HTTP 200 OK \(\d+ pages\)/);
      expect(lessons.structuredContent).toMatchObject({ status: 200, pages: expect.any(Number), body: expect.any(Array) });
      // A page asked for is that page alone.
      const second = await client.callTool({ name: 'listLessons', arguments: { page: 2 } });
      expect(second.structuredContent).toMatchObject({ status: 200, body: { page: 2 }, next_page: expect.stringContaining('page=3') });
      expect(apiEvents(sandbox).at(-1)).toMatchObject({ path: '/api/lessons' });

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
      const lines = readFileSync(audit, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.tool)).toEqual(['listCourses', 'listLessons', 'listLessons', 'school_whoami', 'school_call', 'createCourse']);
      expect(lines[0]).toMatchObject({ profile: 'default', method: 'GET', path: '/api/courses', status: 200 });
      expect(lines[4]).toMatchObject({ method: 'POST', status: null });
      expect(readFileSync(audit, 'utf8')).not.toContain('Sneaky');
    } finally {
      await client.close();
    }
    expectNoSecrets(env, [recording], storedSecrets(env));
    const status = await runSchool(['status'], env);
    expect(status.stdout).toContain(join(env.SCHOOL_CONFIG_DIR, 'state', 'audit.jsonl'));
  });

  it('offers the whole sandbox API, more than 40 operations, through school_operations without a login', async () => {
    const env = userEnv();
    const { client } = await connectSdkClient(env, ['--base-url', sandbox.baseUrl]);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['school_operations', 'school_call', 'school_whoami']));
      expect(names).not.toContain('listCourses');
      const found = await client.callTool({ name: 'school_operations', arguments: { query: 'orders' } });
      expect(found.isError).toBeFalsy();
      const ops = (found.structuredContent as { operations: Array<Record<string, unknown>> }).operations;
      expect(ops).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ method: 'GET', path: '/api/orders', scopes: ['orders:read'] }),
          expect.objectContaining({ method: 'GET', path: '/api/orders/{id}', scopes: ['orders:read'] }),
        ]),
      );
      expect(ops.every((op) => op.method === 'GET')).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('with --allow-write sends a write', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--scope', 'courses:read courses:write'], env));
    const { client } = await connectSdkClient(env, ['--allow-write', '--toolsets', 'courses']);
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
    // The step-up sign-in it handed out outlives the server, until the person ends it (a logout does).
    expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0]).toMatchObject({ pending_login: { url: expect.any(String) } });
    expectSuccess(await runSchool(['logout'], env));
    expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)).toEqual([]);
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
      expect(res.structuredContent).toMatchObject({ status: 200, body: { anonymous: false } });
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

  it('a missing scope, with a host that can open a URL: the step-up login adds it after the person approves, and the call is made', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--scope', 'courses:read'], env));
    let browser: Promise<unknown> | undefined;
    const { client } = await connectSdkClient(env, [], { elicitUrl: (url) => (browser = driveLogin(url)) });
    try {
      const res = await client.callTool({ name: 'listStudents', arguments: {} }, undefined, { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: () => undefined });
      expect(text(res)).toContain('HTTP 200');
      expect(res.structuredContent).toMatchObject({ status: 200, body: { anonymous: false, students: expect.any(Array) } });
      await browser;
      const scopes = JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0].scopes as string[];
      expect(scopes).toEqual(expect.arrayContaining(['courses:read', 'students:read']));
    } finally {
      await client.close();
    }
  });

  it('a declined elicitation answers with the sign-in URL, left waiting for the person; logout ends it', async () => {
    const env = userEnv();
    const inner = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', '--base-url', sandbox.baseUrl], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    let pendingWhileAsked: unknown;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      pendingWhileAsked = JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0]?.pending_login;
      return { action: 'decline' };
    });
    await client.connect(inner);
    try {
      const res = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain(`school login --base-url ${sandbox.baseUrl}`);
      const url = (res.structuredContent as { sign_in: { url: string } }).sign_in.url;
      expect(text(res)).toContain(url);
      expect(pendingWhileAsked).toMatchObject({ expires_at: expect.any(Number), url });
    } finally {
      await client.close();
    }
    // The server is gone, the sign-in is not, until the person ends it.
    expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0]).toMatchObject({ pending_login: { url: expect.any(String) } });
    expect(JSON.parse(expectSuccess(await runSchool(['logout', '--json'], env)).stdout)).toMatchObject({ pending_logins_cancelled: ['default'] });
    expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)).toEqual([]);
  });

  it('not logged in, a host that declared no elicitation gets the sign-in URL in the result; one listener; the call after approval is made', async () => {
    const env = userEnv();
    const { client, recording } = await connectSdkClient(env, ['--base-url', sandbox.baseUrl]);
    try {
      const first = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(first.isError).toBe(true);
      const signIn = (first.structuredContent as { sign_in: { url: string; status: string } }).sign_in;
      expect(signIn.status).toBe('started');
      expect(new URL(signIn.url).origin).toBe(new URL(sandbox.issuer).origin);
      expect(text(first)).toContain(signIn.url);
      expect(text(first)).toMatch(/call this tool again/);
      expect(text(first)).toContain(`school login --base-url ${sandbox.baseUrl}`);
      const pending = JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', 'default.json'), 'utf8')) as { listenerPid: number };

      // Called again before the person approved: the same sign-in, still waiting, no second listener.
      const second = await client.callTool({ name: 'school_whoami', arguments: {} });
      expect(second.isError).toBe(true);
      expect(second.structuredContent).toMatchObject({ sign_in: { url: signIn.url, status: 'waiting' } });
      expect(text(second)).toMatch(/still waiting/);
      expect(JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', 'default.json'), 'utf8')).listenerPid).toBe(pending.listenerPid);

      await driveLogin(signIn.url);
      let third = await client.callTool({ name: 'listCourses', arguments: {} });
      // The listener stores the tokens just after the browser's redirect: give it a moment.
      for (let i = 0; i < 50 && third.isError; i++) {
        await sleep(100);
        third = await client.callTool({ name: 'listCourses', arguments: {} });
      }
      expect(third.isError).toBeFalsy();
      expect(text(third)).toContain('HTTP 200');
      expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0]).toMatchObject({ profile: 'default', user: { name: 'Ada Lovelace' } });
      const token = expectSuccess(await runSchool(['token'], env)).stdout.trim();
      expect(recording.messages.join('\n')).not.toContain(token);
      expect(recording.stderr()).not.toContain(token);
    } finally {
      await client.close();
    }
  });

  it('a missing scope, with a host that declared no elicitation: the step-up sign-in URL in the result, the scope added only after the browser', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--scope', 'courses:read'], env));
    const { client } = await connectSdkClient(env);
    try {
      const first = await client.callTool({ name: 'listStudents', arguments: {} });
      expect(first.isError).toBe(true);
      expect(text(first)).toContain('school login --add-scope students:read');
      const url = (first.structuredContent as { sign_in: { url: string } }).sign_in.url;
      expect(new URL(url).searchParams.get('scope') ?? '').toContain('students:read');
      // Nothing widened yet.
      expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0].scopes).not.toContain('students:read');
      await driveLogin(url);
      let again = await client.callTool({ name: 'listStudents', arguments: {} });
      for (let i = 0; i < 50 && again.isError; i++) {
        await sleep(100);
        again = await client.callTool({ name: 'listStudents', arguments: {} });
      }
      expect(text(again)).toContain('HTTP 200');
      expect(JSON.parse((await runSchool(['status', '--json'], env)).stdout)[0].scopes).toEqual(expect.arrayContaining(['courses:read', 'students:read']));
    } finally {
      await client.close();
    }
  });
});

describe('school mcp, when the server rejects the token', () => {
  it('refreshes on a 401 and retries the call once', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage'], env));
    // The stored access token replaced by one the server never issued, still "valid" by its expiry.
    const file = join(env.SCHOOL_CONFIG_DIR, 'credentials.json');
    const creds = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, string> };
    const key = Object.keys(creds.entries).find((k) => k.startsWith('profile:default@'))!;
    creds.entries[key] = JSON.stringify({ ...JSON.parse(creds.entries[key]), accessToken: 'not-a-token-the-server-issued-0123456789' });
    writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
    const { client } = await connectSdkClient(env);
    try {
      const before = refreshGrants(sandbox).length;
      const res = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(text(res)).toContain('HTTP 200');
      expect(res.structuredContent).toMatchObject({ status: 200, body: { anonymous: false } });
      expect(refreshGrants(sandbox).length).toBe(before + 1);
      expect(
        apiEvents(sandbox)
          .slice(-2)
          .map((e) => e.status),
      ).toEqual([401, 200]);
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
      // Until the API refuses the token the session holds (its 3 s are over), asked again and again up to a deadline.
      const { accessToken } = await stored(env);
      const refused = async () => (await fetch(`${shortLived.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${accessToken}` } })).status === 401;
      await pollUntil(refused, 20_000, 'the access token to expire at the API');
      const second = await client.callTool({ name: 'listCourses', arguments: {} });
      expect(text(second)).toContain('HTTP 200');
      expect(second.structuredContent).toMatchObject({ status: 200, body: { anonymous: false } });
      expect(refreshGrants(shortLived).length).toBe(before + 1);
      expect(apiEvents(shortLived).at(-1)).toMatchObject({ authenticated: true });
    } finally {
      await client.close();
    }
    expectNoSecrets(env, [recording], storedSecrets(env));
  });
});

/** `school mcp` spawned and initialized by the bare client, its tools listed: the answers exactly as they went over the wire. */
async function onTheWire(env: Env, args: string[]) {
  const child = spawn(process.execPath, [SCHOOL_BIN, 'mcp', ...args], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const wire = new WireClient(child.stdin, child.stdout);
  try {
    const init = await wire.initialize();
    return { init, tools: await wire.listTools(), wire, stderr: () => stderr, exited };
  } catch (error) {
    child.kill();
    throw error;
  }
}

describe('school mcp, driven by a client that is not the SDK', () => {
  it('answers a bare newline-delimited JSON-RPC client: initialize, tools/list, tools/call, and exits 0 when stdin closes', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--confidential'], env));
    const { init, tools, wire, stderr, exited } = await onTheWire(env, ['--toolsets', 'courses,students']);
    expect(init).toMatchObject({ serverInfo: { name: 'school' }, capabilities: { tools: { listChanged: true } } });
    expect(String(init.instructions)).toContain('Read-only');
    expect(tools.map((t) => t.name)).toContain('getCourse');
    const listed = ((await wire.callTool('listCourses')).structuredContent as { body: { courses: Array<{ id: string }> } }).body;
    const one = await wire.callTool('getCourse', { id: listed.courses[0].id });
    expect(one.isError).toBeUndefined();
    expect(one.structuredContent).toMatchObject({ status: 200, body: { id: listed.courses[0].id } });
    const echoed = await wire.callTool('school_call', { path: '/api/echo', query: { q: 'algebra' } });
    expect(echoed.structuredContent).toMatchObject({ status: 200, body: { method: 'GET', query: { q: 'algebra' }, authenticated: true } });
    // Nothing but protocol messages on stdout.
    for (const line of wire.messages) expect(() => JSON.parse(line)).not.toThrow();
    wire.close();
    expect(await exited).toBe(0);
    expectNoSecrets(env, [{ messages: wire.messages, stderr }], storedSecrets(env));
  });
});

describe("school mcp's tools, held to the portable subset of JSON Schema", () => {
  it('lists tools for every area, reads and writes, that pass the portability check, and calls one', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage', '--confidential'], env));
    const areas = [...new Set(DATA_SCOPES.map((s) => s.split(':')[0]))];
    expect(areas.length).toBeGreaterThanOrEqual(20);
    const { tools, wire, stderr, exited } = await onTheWire(env, ['--allow-write', '--toolsets', areas.join(',')]);
    try {
      const findings = toolPortabilityFindings(tools, { nameLength: 48 });
      expect(findings, describeFindings(findings)).toEqual([]);
      const names = tools.map((t) => t.name);
      expect(names.length).toBeGreaterThan(90);
      expect(names).toEqual(expect.arrayContaining(['listCourses', 'createCourse', 'getCourse', 'listMembers', 'getEvent', 'listPages', 'school_call', 'school_whoami']));
      const called = await wire.callTool('school_call', { path: '/api/courses' });
      expect(called.content[0].text).toBe('HTTP 200 OK');
      expect(called.structuredContent).toMatchObject({ status: 200, body: { anonymous: false } });
    } finally {
      wire.close();
    }
    expect(await exited).toBe(0);
    expectNoSecrets(env, [{ messages: wire.messages, stderr }], storedSecrets(env));
  });
});

/** An API whose description is hostile: a tiny server of our own, serving /openapi.json alone. */
async function hostileApi(doc: unknown) {
  const { createServer } = await import('node:http');
  const body = JSON.stringify(doc);
  const server = createServer((req, res) => {
    if (req.url === '/openapi.json') res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const ESC_DOC = {
  components: {
    schemas: { Loop: { type: 'object', properties: { self: { $ref: '#/components/schemas/Loop' }, other: { $ref: '#/components/schemas/Other' } } }, Other: { $ref: '#/components/schemas/Loop' } },
  },
  paths: Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [
      `/api/evil/${i}/{id\u001b}`,
      {
        get: {
          operationId: i % 3 ? 'dup\u001b[31m\u0007licate' : `${'x'.repeat(300)}${i}\u202e`,
          summary: '\u001b]52;c;cGF5bG9hZA==\u0007Summary\u001b[2J',
          parameters: [
            { name: 'id\u001b', in: 'path', schema: { $ref: '#/components/schemas/Loop' } },
            { name: 'filter[kind]', in: 'query', schema: { type: ['string', 'null'] } },
          ],
        },
      },
    ]),
  ),
};

describe('school mcp, with a hostile API description', () => {
  it('still starts; every tool name is valid and unique; schemas pass the portability check; stderr stays plain', async () => {
    const api = await hostileApi(ESC_DOC);
    const env = userEnv();
    try {
      const { client, recording } = await connectSdkClient(env, ['--base-url', api.baseUrl]);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names.length).toBe(32);
        for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,48}$/);
        expect(new Set(names).size).toBe(names.length);
        // The same names on a second run.
        const again = await connectSdkClient(env, ['--base-url', api.baseUrl]);
        expect((await again.client.listTools()).tools.map((t) => t.name)).toEqual(names);
        await again.client.close();
      } finally {
        await client.close();
      }
      expect(recording.stderr()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      const listed = await onTheWire(env, ['--base-url', api.baseUrl]);
      try {
        const findings = toolPortabilityFindings(listed.tools, { nameLength: 48 });
        expect(findings, describeFindings(findings)).toEqual([]);
        expect(listed.tools.length).toBe(32);
      } finally {
        listed.wire.close();
      }
      expect(await listed.exited).toBe(0);
    } finally {
      await api.close();
    }
  });

  it('offers a huge description through school_operations and still starts', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 6000; i++) paths[`/api/area${i % 30}/${i}`] = { get: { operationId: `op${i % 100}`, summary: `Thing ${i}`, security: [{ oauth2: [`area${i % 30}:read`] }] } };
    const api = await hostileApi({ paths });
    const env = userEnv();
    try {
      const { client } = await connectSdkClient(env, ['--base-url', api.baseUrl]);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['school_operations', 'school_call', 'school_whoami']);
        const found = await client.callTool({ name: 'school_operations', arguments: { query: 'thing 4321' } });
        expect(found.structuredContent).toEqual({ operations: [expect.objectContaining({ method: 'GET', path: '/api/area1/4321', scopes: ['area1:read'] })] });
      } finally {
        await client.close();
      }
      const { client: scoped } = await connectSdkClient(env, ['--base-url', api.baseUrl, '--toolsets', 'area7']);
      try {
        expect((await scoped.listTools()).tools.length).toBe(200 + 2);
      } finally {
        await scoped.close();
      }
    } finally {
      await api.close();
    }
  });
});

describe('start-up', () => {
  it('`school token` does not load the MCP SDK or the server bundle', async () => {
    const env = userEnv();
    expectSuccess(await runSchool(['login', '--base-url', sandbox.baseUrl, '--insecure-storage'], env));
    const loaded = join(env.HOME, 'loaded-modules.txt');
    const probe = join(REPO, 'test', 'helpers', 'loaded-modules.cjs');
    expectSuccess(await runSchool(['token'], { ...env, NODE_OPTIONS: preloading(probe), LOADED_MODULES_FILE: loaded }));
    const modules = readFileSync(loaded, 'utf8').split('\n');
    expect(modules).toContain(SCHOOL_BIN);
    expect(modules.filter((m) => m.includes('modelcontextprotocol') || m.endsWith('mcp.cjs') || m.includes('zod') || m.includes('ajv'))).toEqual([]);
    // dist/cli.cjs itself holds none of the SDK: it lives in dist/mcp.cjs.
    expect(readFileSync(join(REPO, 'dist', 'cli.cjs'), 'utf8')).not.toContain('notifications/tools/list_changed');
  });
});

describe('school mcp, for a client that sends its calls and closes stdin at once', () => {
  it('answers every call already sent before it exits 0, a slow one included', async () => {
    // An API that takes a second to answer: the call is still under way when stdin closes.
    const slow = createServer((_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"slow":true}'), 1000));
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
    const baseUrl = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
    try {
      const env = userEnv({ SCHOOL_BASE_URL: baseUrl, SCHOOL_TOKEN: 'env-token-for-the-slow-api' });
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'one-shot', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'school_call', arguments: { method: 'GET', path: '/api/slow' } } },
      ];
      const res = await spawnNode([SCHOOL_BIN, 'mcp'], env, { input: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n` }).done;
      expect(res.code).toBe(0);
      const answers = res.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id?: number; result?: { isError?: boolean; content?: Array<{ text?: string }> } });
      expect(answers.map((a) => a.id)).toEqual([1, 2]);
      expect(answers[1]?.result?.isError).toBeFalsy();
      expect(JSON.stringify(answers[1]?.result)).toContain('slow');
      expect(res.stdout + res.stderr).not.toContain('env-token-for-the-slow-api');
    } finally {
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
