import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { type Sandbox, type SandboxEvent, type SandboxOptions, type SandboxVariant, startSandbox } from '@school/sandbox';
import { shellCommand } from '@school/sandbox/command-line';
import { OWNER_VARIABLE } from '../helpers/leftover-processes.js';
import { afterAll, beforeAll, expect, inject } from 'vitest';

export { shellCommand };

export const REPO = resolve(import.meta.dirname, '..', '..');
export const SCHOOL_BIN = join(REPO, 'bin', 'school.cjs');
// The sandbox's browser driver as a plain script: the CLI under test runs it as its BROWSER.
export const BROWSER_DRIVER = createRequire(import.meta.url).resolve('@school/sandbox/browser-driver.mjs');

export type Env = Record<string, string | undefined>;

// Sign-ins driven in this process (driveLogin) use the run's one Chromium too.
const browserEndpoint = inject('browserEndpoint');
const browserService = inject('browserService');
if (browserEndpoint && !process.env.BROWSER_DRIVER_ENDPOINT) process.env.BROWSER_DRIVER_ENDPOINT = browserEndpoint;

/** A fresh home for one simulated user: config, state and cache all under it. */
export function userEnv(extra: Env = {}): Env & { HOME: string; SCHOOL_CONFIG_DIR: string } {
  const home = mkdtempSync(join(tmpdir(), 'school-e2e-'));
  const base: Env = {};
  // Only what a CLI legitimately reads from a clean environment; nothing of the test runner's.
  for (const k of ['PATH', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'LANG', 'TERM']) if (process.env[k]) base[k] = process.env[k];
  return {
    ...base,
    HOME: home,
    SCHOOL_CONFIG_DIR: join(home, 'config'),
    BROWSER: shellCommand(process.execPath, BROWSER_DRIVER),
    BROWSER_DRIVER_LOG: join(home, 'browser-driver.log'),
    // The run's one Chromium and its sign-in service (test/helpers/browser-server.ts), where the project started them.
    BROWSER_DRIVER_ENDPOINT: browserEndpoint,
    BROWSER_DRIVER_SERVICE: browserService,
    NO_COLOR: '1',
    // Marks every process this file starts, so that none outlives it (test/helpers/no-leftovers.ts).
    [OWNER_VARIABLE]: String(process.pid),
    ...extra,
  } as Env & { HOME: string; SCHOOL_CONFIG_DIR: string };
}

/** The environment of a machine without a Secret Service: no session bus. */
export function withoutKeychain(env: Env): Env {
  const copy = { ...env };
  delete copy.DBUS_SESSION_BUS_ADDRESS;
  delete copy.DISPLAY;
  return copy;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  done: Promise<RunResult>;
}

function cleanEnv(env: Env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * The sandbox of one test file: started before its tests (quietly, with the options given) and
 * closed after them. What it returns stands for the running sandbox (read it inside tests and
 * hooks, not at the top level, where nothing runs yet).
 */
export function useSandbox(options: Omit<SandboxOptions, 'quiet'> = {}): Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ quiet: true, ...options });
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  const running = (): Sandbox => {
    if (!sandbox) throw new Error('The sandbox of this file is not running yet: use it inside a test or a hook.');
    return sandbox;
  };
  return new Proxy({} as Sandbox, { get: (_, key) => Reflect.get(running(), key) });
}

/** A sandbox of its own for one test, with the spec-legal choices given (and a token lifetime), closed after it. */
export async function withVariants(variants: SandboxVariant[], run: (sb: Sandbox) => Promise<void>, accessTokenTtl?: number): Promise<void> {
  const sb = await startSandbox({ quiet: true, variants, ...(accessTokenTtl ? { accessTokenTtl } : {}) });
  try {
    await run(sb);
  } finally {
    await sb.close();
  }
}

/**
 * Any Node program (a script using the library, say) run as a user would, its output collected.
 * `stdin: 'ignore'` gives it /dev/null, as an agent's shell tool does.
 */
export function spawnNode(args: string[], env: Env, options: { input?: string; cwd?: string; stdin?: 'pipe' | 'ignore' } = {}): Running {
  const child = spawn(process.execPath, args, { env: cleanEnv(env), cwd: options.cwd, stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  if (options.input !== undefined) child.stdin!.end(options.input);
  else child.stdin?.end();
  const done = new Promise<RunResult>((resolveDone) => child.on('close', (code) => resolveDone({ code, stdout: out, stderr: err })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitForStderr(pattern, timeoutMs = 20_000) {
      return new Promise((res, rej) => {
        const started = Date.now();
        const tick = () => {
          const m = err.match(pattern);
          if (m) return res(m);
          if (child.exitCode !== null) return rej(new Error(`school exited (${child.exitCode}) before printing ${pattern}: ${err}`));
          if (Date.now() - started > timeoutMs) return rej(new Error(`timed out waiting for ${pattern}; stderr so far: ${err}`));
          setTimeout(tick, 25);
        };
        tick();
      });
    },
  };
}

/**
 * A NODE_OPTIONS value that preloads each file. Node splits NODE_OPTIONS at spaces outside double
 * quotes (where a backslash escapes the next character), so a checkout under `~/my schöol/` needs
 * its paths quoted that way: bare, the path is cut at its space.
 */
export function preloading(...files: string[]): string {
  return files.map((file) => `--require "${file.replace(/["\\]/g, '\\$&')}"`).join(' ');
}

/** The built `school` run as a user would, its output collected. */
export function startSchool(args: string[], env: Env, input?: string): Running {
  return spawnNode([SCHOOL_BIN, ...args], env, { input });
}

/**
 * As an agent's shell tool runs a command: stdin from /dev/null, stdout and stderr piped, no TTY.
 * The result comes once the pipes close: a background process holding them would keep it waiting.
 */
export async function runAsAgent(args: string[], env: Env): Promise<RunResult & { ms: number }> {
  const started = Date.now();
  const result = await spawnNode([SCHOOL_BIN, ...args], env, { stdin: 'ignore' }).done;
  return { ...result, ms: Date.now() - started };
}

export function runSchool(args: string[], env: Env, input?: string): Promise<RunResult> {
  return startSchool(args, env, input).done;
}

/** Every file under dir whose bytes contain the needle: where a secret must not be. */
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile() && readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  walk(dir);
  return hits;
}

/** Whether a process of this machine still runs (signal 0 sends nothing, only asks). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The authorization URL a `--no-browser` login prints alone on its own line. */
export const AUTH_URL_LINE = /^(http:\/\/127\.0\.0\.1:\d+\/\S*authorize\?\S+)$/m;

/** Waits until a file (a log written by a detached process) matches. */
export async function waitForFileText(path: string, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      // not written yet
    }
    if (pattern.test(text)) return text;
    if (Date.now() - started > timeoutMs) throw new Error(`${path} did not match ${pattern} within ${timeoutMs} ms: ${text}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Asserts a run succeeded, with its stderr in the failure message. */
/** Waits until `check` holds, asking every 50 ms, and fails once `deadlineMs` passed without it: no fixed sleep. */
export async function pollUntil(check: () => boolean | Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function expectSuccess(res: RunResult): RunResult {
  if (res.code !== 0) throw new Error(`school exited ${res.code}; stderr:\n${res.stderr}`);
  return res;
}

/**
 * The rest of a session after a login: `token` refreshes once the token is due (expire() makes it
 * so), `whoami` and `call` work, and `logout` ends the token at the server.
 */
export async function expectSessionAfterLogin(sb: Sandbox, env: Env): Promise<void> {
  await expire(env);
  const token = await runSchool(['token'], env);
  expect(token.code, token.stderr).toBe(0);
  expect(refreshGrants(sb).map((e) => e.ok)).toEqual([true]);
  const whoami = await runSchool(['whoami'], env);
  expect(whoami.code, whoami.stderr).toBe(0);
  const call = await runSchool(['call', '/api/lessons'], env);
  expect(call.code, call.stderr).toBe(0);
  const logout = await runSchool(['logout'], env);
  expect(logout.code, logout.stderr).toBe(0);
  expect((await sb.introspect(token.stdout.trim())).active).toBe(false);
}

/**
 * A forward proxy for plain http on loopback that records the absolute URLs it relays; `holdMs`
 * delays the answers to requests whose URL matches `hold`, after they reached the server, and
 * targets `unreachable` says so of get a 502 instead, as from a machine that cannot reach them.
 */
export async function forwardProxy(options: { hold?: RegExp; holdMs?: number; unreachable?: (target: URL) => boolean } = {}) {
  const seen: string[] = [];
  let held = 0;
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url!);
    if (options.unreachable?.(target)) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('unreachable from here');
      return;
    }
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers: req.headers }, (r) => {
      const relay = () => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      };
      if (options.hold?.test(req.url!)) {
        held += 1;
        setTimeout(relay, options.holdMs ?? 2000);
      } else relay();
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    seen,
    held: () => held,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A login to the sandbox given, as a user runs it, that must succeed. */
export async function login(env: Env, sb: Pick<Sandbox, 'baseUrl'>, extra: string[] = []): Promise<RunResult> {
  return expectSuccess(await runSchool(['login', '--base-url', sb.baseUrl, ...extra], env));
}

/** The sandbox's event log, filtered: events of a type whose fields match the ones given. */
export function eventsOf(sb: Pick<Sandbox, 'events'>, type: string, fields: Record<string, unknown> = {}): SandboxEvent[] {
  return sb.events.filter((e) => e.type === type && Object.entries(fields).every(([k, v]) => e[k] === v));
}

/** The refresh grants the sandbox answered (`ok` says whether it granted one). */
export function refreshGrants(sb: Pick<Sandbox, 'events'>): SandboxEvent[] {
  return eventsOf(sb, 'token', { grant_type: 'refresh_token' });
}

/** The service under which the CLI files every secret in the OS keychain. */
export const KEYCHAIN_SERVICE = 'school-cli';

/** The keychain (or credential file) account of a profile's token set: it names the config dir too. */
export function profileAccount(env: { SCHOOL_CONFIG_DIR?: string }, profile = 'default'): string {
  return `profile:${profile}@${env.SCHOOL_CONFIG_DIR}`;
}

type Keytar = typeof import('keytar');

export async function keytar(): Promise<Keytar> {
  return ((await import('keytar')) as unknown as { default: Keytar }).default;
}

/** What the keychain holds under an account of the CLI's (null: nothing). */
export async function keychainSecret(account: string): Promise<string | null> {
  return (await keytar()).getPassword(KEYCHAIN_SERVICE, account);
}

/** What the keychain holds for a profile's tokens (null: nothing), read as the CLI reads it. */
export async function keychainEntry(env: { SCHOOL_CONFIG_DIR?: string }, profile = 'default'): Promise<string | null> {
  return keychainSecret(profileAccount(env, profile));
}

/** A stored token set as the CLI writes it (only the fields tests read or rewrite are named). */
export type StoredTokens = { accessToken: string; refreshToken: string; expiresAt: number; obtainedAt?: number; clientId?: string } & Record<string, unknown>;

/** Where a token set lives: a keychain account, or an entry of a 0600 credential file. */
interface TokenEntry {
  account: string;
  file?: string;
}

function configDirOf(env: Env): string {
  if (!env.SCHOOL_CONFIG_DIR) throw new Error('the environment names no SCHOOL_CONFIG_DIR');
  return env.SCHOOL_CONFIG_DIR;
}

/**
 * The entry of a profile's tokens (where config.json says they are), or with `job`, of the one
 * headless CI job that ran in this environment (where its marker in the state dir says).
 */
function tokenEntry(env: Env, target: { profile?: string; job?: boolean }): TokenEntry {
  const configDir = configDirOf(env);
  if (target.job) {
    const stateDir = join(configDir, 'state');
    const markers = readdirSync(stateDir).filter((n) => /^ci-[0-9a-f]+\.json$/.test(n));
    if (markers.length !== 1) throw new Error(`expected one CI job marker in ${stateDir}, found ${markers.length}`);
    const marker = JSON.parse(readFileSync(join(stateDir, markers[0]!), 'utf8')) as { storage: string };
    const account = `ci:${markers[0]!.slice('ci-'.length, -'.json'.length)}`;
    return marker.storage === 'file' ? { account, file: join(stateDir, 'credentials.json') } : { account };
  }
  const profile = target.profile ?? 'default';
  const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { profiles: Record<string, { storage?: string }> };
  const storage = config.profiles[profile]?.storage;
  if (!storage) throw new Error(`no profile "${profile}" in ${configDir}/config.json`);
  const account = profileAccount(env, profile);
  return storage === 'file' ? { account, file: join(configDir, 'credentials.json') } : { account };
}

async function readEntry(entry: TokenEntry): Promise<string | null> {
  if (!entry.file) return (await keytar()).getPassword(KEYCHAIN_SERVICE, entry.account);
  if (!existsSync(entry.file)) return null;
  return (JSON.parse(readFileSync(entry.file, 'utf8')) as { entries: Record<string, string> }).entries[entry.account] ?? null;
}

async function writeEntry(entry: TokenEntry, text: string): Promise<void> {
  if (!entry.file) return (await keytar()).setPassword(KEYCHAIN_SERVICE, entry.account, text);
  const shape = JSON.parse(readFileSync(entry.file, 'utf8')) as { entries: Record<string, string> };
  shape.entries[entry.account] = text;
  writeFileSync(entry.file, JSON.stringify(shape), { mode: 0o600 });
}

/** The token set a profile (or, with `job`, the CI job of this environment) has stored. */
export async function stored(env: Env, target: { profile?: string; job?: boolean } = {}): Promise<StoredTokens> {
  const entry = tokenEntry(env, target);
  const text = await readEntry(entry);
  if (!text) throw new Error(`nothing stored for ${entry.account}${entry.file ? ` in ${entry.file}` : ' in the keychain'}`);
  return JSON.parse(text) as StoredTokens;
}

/**
 * Makes time pass for a stored token set without waiting: its access token made to expire
 * `expiresIn` seconds from now (default: a minute ago), so the next command refreshes first
 * exactly as it would once the lifetime ran out. The server still honours the token; the refresh
 * the CLI then makes is real. Returns the token set as it is stored now.
 */
export async function expire(env: Env, options: { profile?: string; job?: boolean; expiresIn?: number } = {}): Promise<StoredTokens> {
  const entry = tokenEntry(env, options);
  const text = await readEntry(entry);
  if (!text) throw new Error(`nothing stored for ${entry.account}`);
  const set = { ...(JSON.parse(text) as StoredTokens), expiresAt: Math.floor(Date.now() / 1000) + (options.expiresIn ?? -60) };
  await writeEntry(entry, JSON.stringify(set));
  return set;
}
