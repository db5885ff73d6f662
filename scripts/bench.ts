// `npm run bench`: the start-up cost of the commands scripts call in loops, as a ratio to
// `node -e 0` on the same machine. Whole processes, warm-ups first, then rounds in which every
// case runs once in a fresh random order (so drifting load hits all cases alike), medians.
//
// It runs inside the keyring wrapper (a private D-Bus with a throwaway gnome-keyring), against
// two sandbox processes on loopback, so the measured process never shares a CPU slice with an
// in-process server: one with the default token lifetime, one whose access tokens last a
// second, for the case that must refresh first.
//
//   BENCH_RUNS=N      timed rounds (default 40; about 2-3 minutes on two busy cores)
//   BENCH_SMOKE=1     a quick smoke check (default 5 rounds): prints the table, never fails on
//                     a budget, still fails when a case breaks
//   BENCH_JSON=path   also write every sample and the machine as JSON, to compare before/after
//   BENCH_COMPARE=path  a BENCH_JSON file of an earlier run, shown as a "before" column
//   BENCH_ONLY=text   only the cases whose name holds the text (and node -e 0): one row measured
//                     alone, without the other cases loading the machine between its runs
//   BENCH_BIN_BEFORE=path  another build's bin/school.cjs (say, of a checkout of the main branch):
//                     each school case also runs with it, in the same rounds, as a reference row;
//                     before/after compared under the same load, unlike two separate runs
//
// Exit status: 0 when every budget holds, 1 when one is over (not with BENCH_SMOKE) or a
// case failed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, tmpdir, type } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from 'node:http';
import { BROWSER_DRIVER_SCRIPT } from '@school/sandbox/browser-driver';
import { bigDescription } from '../test/helpers/big-description.ts';
import { shellCommand } from '@school/sandbox/command-line';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'school.cjs');
const SANDBOX_BIN = join(ROOT, 'sandbox', 'bin', 'school-sandbox.mjs');
const binBefore = process.env.BENCH_BIN_BEFORE ? resolve(process.env.BENCH_BIN_BEFORE) : undefined;
const NODE = process.execPath;
const MINIMAL_MCP = join(ROOT, 'scripts', 'bench-minimal-mcp.mjs');

const SMOKE = process.env.BENCH_SMOKE === '1';
const RUNS = positiveInteger('BENCH_RUNS', SMOKE ? 5 : 40);
const WARMUPS = SMOKE ? 1 : 3;
const RSS_RUNS = SMOKE ? 3 : 9;
const RSS_BUDGET_MIB = 50;
// Access tokens of the refresh sandbox last this long; a refresh run waits until the token the
// previous one obtained has certainly expired (one more second covers rounding to seconds).
const SHORT_TTL_S = 1;
const REFRESH_GAP_MS = (SHORT_TTL_S + 1) * 1000;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) fail(`${name} must be a positive whole number, not "${raw}".`);
  return n;
}

function fail(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(1);
}

const RSS_ROW = 'peak RSS of school token';
const GITHUB_RSS_ROW = "peak RSS of the first run on GitHub's description";
const GITHUB_RSS_BUDGET_MIB = 150;

// The ratios (and peak RSS) of an earlier run, by case name; read before the run, so that a
// wrong path is reported at once rather than after minutes of measuring.
function earlierResults(path: string | undefined): Map<string, string> | undefined {
  if (!path) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    fail(`BENCH_COMPARE: cannot read ${path} as JSON (${err instanceof Error ? err.message : String(err)}).`);
  }
  const earlier = new Map<string, string>();
  if (typeof data === 'object' && data !== null) {
    if ('cases' in data && Array.isArray(data.cases)) {
      for (const c of data.cases) if (typeof c?.name === 'string' && typeof c.ratio === 'number') earlier.set(c.name, c.ratio.toFixed(2));
    }
    if ('peakRss' in data && typeof data.peakRss === 'object' && data.peakRss !== null && 'medianMiB' in data.peakRss && typeof data.peakRss.medianMiB === 'number') {
      earlier.set(RSS_ROW, `${data.peakRss.medianMiB.toFixed(1)} MiB`);
    }
  }
  if (earlier.size === 0) fail(`BENCH_COMPARE: ${path} holds no results of this benchmark.`);
  return earlier;
}
const earlier = earlierResults(process.env.BENCH_COMPARE);
if (binBefore && !existsSync(binBefore)) fail(`BENCH_BIN_BEFORE: there is no ${binBefore}.`);

// ---------------------------------------------------------------------------------------------
// Processes

interface Run {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;

// An MCP server timed as a host feels it: from spawn to its answer to `initialize`; then its
// stdin is closed and it is waited for, untimed.
async function timedInitialize(argv: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const [command, ...args] = argv;
  const started = process.hrtime.bigint();
  const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let ms = -1;
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const answered = new Promise<void>((resolveAnswer) => {
    child.stdout.on('data', (c: Buffer) => {
      if (ms < 0 && (stdout += c).includes('\n')) {
        ms = Number(process.hrtime.bigint() - started) / 1e6;
        resolveAnswer();
      }
    });
    child.on('close', () => resolveAnswer());
  });
  child.stdin.write(INITIALIZE);
  await answered;
  child.stdin.end();
  const status = await new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.on('close', (code) => r(code))));
  return { ms, status, stdout, stderr };
}

// Measured children get the same environment; nothing of the caller's that changes how `school`
// or node behaves (a token, a profile, CI, preloaded modules) leaks in.
function childEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, SCHOOL_CONFIG_DIR: join(home, 'config') };
  for (const name of ['SCHOOL_TOKEN', 'SCHOOL_REFRESH_TOKEN', 'SCHOOL_CLIENT_ID', 'SCHOOL_CLIENT_SECRET', 'SCHOOL_BASE_URL', 'SCHOOL_PROFILE', 'CI', 'NODE_OPTIONS', 'BROWSER']) delete env[name];
  return env;
}

function timedRun(argv: string[], env: NodeJS.ProcessEnv, input?: string): Run {
  const [command, ...args] = argv;
  const started = process.hrtime.bigint();
  const r = spawnSync(command, args, { env, input, stdio: ['pipe', 'pipe', 'pipe'], encoding: 'utf8', timeout: 60_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.error) fail(`${shown(argv)} could not run: ${r.error.message}`);
  return { ms, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function shown(argv: string[]): string {
  return argv
    .map((a) =>
      a === NODE
        ? 'node'
        : a === BIN
          ? 'bin/school.cjs'
          : a === MINIMAL_MCP
            ? 'scripts/bench-minimal-mcp.mjs'
            : a === binBefore
              ? '$BENCH_BIN_BEFORE'
              : a === LIBRARY_SCRIPT
                ? 'token.mjs (the library)'
                : a,
    )
    .join(' ');
}

// Never shows the text it parses: for `school token --json` it holds the token itself.
function parsedJson(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    fail(`${what} did not print JSON.`);
  }
}

// What a failed process said on stderr, on one line: the error of a crash (node prints the
// stack and details after it), else the last lines, where `school` puts its message.
function lastWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.find((l) => /^\w*Error\b/.test(l)) ?? lines.slice(-2).join(' / ');
}

// Never prints stdout: for `school token` it is the token itself.
function expectSuccess(name: string, argv: string[], run: Run): void {
  if (run.status === 0) return;
  const said = lastWords(run.stderr);
  fail(`"${name}" (${shown(argv)}) exited ${run.status}${said ? `: ${said}` : ''}`);
}

interface SandboxProcess {
  baseUrl: string;
  eventsFile: string;
}

// Every sandbox started, stopped when the benchmark exits, however it exits.
const sandboxChildren: ChildProcess[] = [];

async function startSandbox(scratch: string, label: string, extraArgs: string[]): Promise<SandboxProcess> {
  const eventsFile = join(scratch, `${label}-events.jsonl`);
  const child = spawn(NODE, [SANDBOX_BIN, '--quiet', '--events', eventsFile, ...extraArgs], {
    env: childEnv(scratch),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  sandboxChildren.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const lines = createInterface({ input: child.stdout });
  // Once it is up, a sandbox that dies shows as failing cases; until then, as itself.
  const baseUrl = await new Promise<string>((resolveUrl) => {
    const timer = setTimeout(() => fail(`the ${label} sandbox did not start within 60 s.`), 60_000);
    const exited = (code: number | null) => fail(`the ${label} sandbox exited ${code}: ${lastWords(stderr)}`);
    child.once('exit', exited);
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.off('exit', exited);
      resolveUrl(line.trim());
    });
  });
  return { baseUrl, eventsFile };
}

function sandboxEvents(sandbox: SandboxProcess): Array<Record<string, unknown>> {
  return readFileSync(sandbox.eventsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

const isRefreshGrant = (e: Record<string, unknown>) => e.type === 'token' && e.grant_type === 'refresh_token' && e.ok === true;
const isAuthenticatedCoursesGet = (e: Record<string, unknown>) => e.type === 'api' && e.method === 'GET' && e.path === '/api/courses' && e.authenticated === true && e.status === 200;

// The sandbox writes an event as it answers; give it a moment to land after the client exits.
async function countEvents(sandbox: SandboxProcess, match: (e: Record<string, unknown>) => boolean, expected: number): Promise<number> {
  let count = 0;
  for (let attempt = 0; attempt < 20; attempt++) {
    count = sandboxEvents(sandbox).filter(match).length;
    if (count >= expected) return count;
    await sleep(50);
  }
  return count;
}

async function login(home: string, baseUrl: string, storage: 'file' | 'keychain', tokenType = 'bearer'): Promise<void> {
  const args = [BIN, 'login', '--base-url', baseUrl, ...(storage === 'file' ? ['--insecure-storage'] : [])];
  const env = { ...childEnv(home), BROWSER: shellCommand(NODE, BROWSER_DRIVER_SCRIPT) };
  const child = spawn(NODE, args, { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  if (code !== 0) fail(`login to ${baseUrl} (${storage}) exited ${code}: ${lastWords(stderr)}`);
  // Without a usable keychain, login falls back to the file and the keychain row would lie.
  const status = spawnSync(NODE, [BIN, 'status', '--json'], { env, encoding: 'utf8' });
  const profiles = parsedJson('school status --json', status.stdout);
  const where = Array.isArray(profiles) && profiles.length > 0 ? profiles[0].storage : undefined;
  if (where !== storage) {
    fail(`the ${storage} profile keeps its secrets in "${where}"; run the benchmark inside the keyring wrapper (npm run bench).`);
  }
  const bound = Array.isArray(profiles) && profiles.length > 0 ? profiles[0].token_type : undefined;
  if (bound !== tokenType) fail(`the login to ${baseUrl} got ${String(bound)} tokens, not ${tokenType}.`);
}

// ---------------------------------------------------------------------------------------------
// Set-up: two sandboxes, three logged-in homes

const scratch = mkdtempSync(join(tmpdir(), 'school-bench-'));
// A script of a user of the library, in a project of its own where `school` is installed (linked to this checkout).
const libraryProject = join(scratch, 'library-user');
mkdirSync(join(libraryProject, 'node_modules'), { recursive: true });
symlinkSync(ROOT, join(libraryProject, 'node_modules', 'school'), 'dir');
writeFileSync(join(libraryProject, 'package.json'), '{"type":"module","private":true}\n');
const LIBRARY_SCRIPT = join(libraryProject, 'token.mjs');
writeFileSync(LIBRARY_SCRIPT, "import { openSession } from 'school';\nconst session = await openSession();\nprocess.stdout.write(`${await session.token()}\\n`);\n");

const stopSandboxes = () => {
  for (const child of sandboxChildren) if (child.exitCode === null) child.kill('SIGTERM');
};
process.on('exit', () => {
  stopSandboxes();
  rmSync(scratch, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const machine = {
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  cores: availableParallelism(),
  node: process.version,
  os: `${osName()} (${type()} ${release()})`,
  loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
};

function osName(): string {
  try {
    return /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? type();
  } catch {
    return type();
  }
}

console.error('bench: starting four sandboxes and logging in five profiles (a headless browser signs in)...');
// The DPoP pair offers DPoP (RFC 9449): their logins get tokens bound to a key, and every request
// with them carries a proof; the rows against them say what a proof adds.
const [apiSandbox, refreshSandbox, dpopSandbox, dpopRefreshSandbox] = await Promise.all([
  startSandbox(scratch, 'api', []),
  startSandbox(scratch, 'refresh', ['--access-ttl', String(SHORT_TTL_S)]),
  startSandbox(scratch, 'dpop', ['--variant', 'dpop-offered']),
  startSandbox(scratch, 'dpop-refresh', ['--variant', 'dpop-offered', '--access-ttl', String(SHORT_TTL_S)]),
]);

const homes = {
  file: join(scratch, 'file'),
  keychain: join(scratch, 'keychain'),
  refresh: join(scratch, 'refresh'),
  dpop: join(scratch, 'dpop'),
  dpopRefresh: join(scratch, 'dpop-refresh'),
  api500: join(scratch, 'api500'),
  githubFirst: join(scratch, 'github-first'),
  githubCached: join(scratch, 'github-cached'),
};
await login(homes.file, apiSandbox.baseUrl, 'file');
await login(homes.keychain, apiSandbox.baseUrl, 'keychain');
await login(homes.refresh, refreshSandbox.baseUrl, 'file');
await login(homes.dpop, dpopSandbox.baseUrl, 'file', 'DPoP');
await login(homes.dpopRefresh, dpopRefreshSandbox.baseUrl, 'file', 'DPoP');
// When each refreshing home last obtained an access token: its login, then each refresh run.
const lastRefreshEnd = { refresh: Date.now(), dpopRefresh: Date.now() };
const envs = {
  file: childEnv(homes.file),
  keychain: childEnv(homes.keychain),
  refresh: childEnv(homes.refresh),
  dpop: childEnv(homes.dpop),
  dpopRefresh: childEnv(homes.dpopRefresh),
  api500: childEnv(homes.api500),
  githubFirst: childEnv(homes.githubFirst),
  githubCached: childEnv(homes.githubCached),
};

// A description of 500 operations, cached once by `school api` (the listing fetches it; fresh for
// 24 hours, so the measured runs make no request). Its server lives only for that one fetch.
const API500_OPERATIONS = 500;
const api500Url = await new Promise<string>((resolveUrl) => {
  const text = JSON.stringify(bigDescription(API500_OPERATIONS));
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json', etag: '"bench"' }).end(text));
  server.listen(0, '127.0.0.1', () => {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const listed = spawn(NODE, [BIN, 'api', '--base-url', url, '--json'], { env: envs.api500, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    listed.stdout.on('data', (c) => (out += String(c)));
    listed.stderr.on('data', (c) => (err += String(c)));
    listed.on('close', (code) => {
      server.close();
      const ops = code === 0 ? (parsedJson('school api --json', out) as unknown[]) : [];
      if (ops.length !== API500_OPERATIONS) fail(`school api --json listed ${ops.length} operations of ${API500_OPERATIONS} (exit ${code}): ${lastWords(err)}`);
      resolveUrl(url);
    });
  });
});
const api500DryRun = [NODE, BIN, 'api', '--base-url', api500Url, 'create-thing7', '--title', 'Algebra', '--seats', '30', '--address.city', 'Paris', '--dry-run'];

// GitHub's published description (13 MB, 1,223 operations) as a file named with --description:
// read, indexed and cached by the first run (a fresh home every time), read from the cache after.
const GITHUB_DESCRIPTION = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
const githubDryRun = (home: 'githubFirst' | 'githubCached') => [
  NODE,
  BIN,
  'api',
  '--base-url',
  'https://api.github.com',
  ...(home === 'githubFirst' ? ['--description', GITHUB_DESCRIPTION] : []),
  'repos-create-in-org',
  'octo-org',
  '--name',
  'hello',
  '--private',
  '--dry-run',
];
const githubCheck = (run: Run) => {
  if (!run.stdout.startsWith('POST https://api.github.com/orgs/octo-org/repos') || !run.stdout.includes('"private": true')) fail('school api repos-create-in-org --dry-run did not print the request.');
};
// The cached home: one run names the description, which its profile then remembers.
expectSuccess('the GitHub description cached', githubDryRun('githubFirst'), timedRun(githubDryRun('githubFirst'), envs.githubCached));
// How each home is set up, for the legend under the table.
const homeNotes = {
  file: 'logged in to the sandbox with --insecure-storage (0600 file store), token valid for an hour',
  keychain: 'logged in to the same sandbox, secrets in the gnome-keyring of the wrapper',
  refresh: `logged in with --insecure-storage to a second sandbox whose access tokens last ${SHORT_TTL_S} s`,
  dpop: 'as [file], to a sandbox offering DPoP: tokens bound to a key, a proof signed for every request',
  dpopRefresh: `as [refresh], to a sandbox offering DPoP: the refresh carries a proof, as does the call`,
  api500: `no login; a cached description of ${API500_OPERATIONS} operations (its compact index read, one operation's detail, the body checked against its schema)`,
  githubFirst: "no login; nothing cached: GitHub's 13 MB description read from a file (--description), indexed and cached",
  githubCached: "no login; GitHub's description cached by an earlier run, named by the profile",
};

// The token curl sends: held in memory and handed to curl on stdin, never on a command line.
const tokenRun = timedRun([NODE, BIN, 'token'], envs.file);
expectSuccess('school token', [NODE, BIN, 'token'], tokenRun);
const curlHeaders = `Authorization: Bearer ${tokenRun.stdout.trim()}\nAccept: application/json\n`;
const coursesUrl = new URL('/api/courses', apiSandbox.baseUrl).href;

// ---------------------------------------------------------------------------------------------
// The cases

interface Case {
  name: string;
  argv: string[];
  home: keyof typeof homes;
  budget?: number; // at most this ratio to `node -e 0`; none: shown for reference
  input?: string; // stdin
  before?: () => Promise<void>;
  check?: (run: Run) => void | Promise<void>;
  getsCourses?: true; // sends GET /api/courses with the file home's token, counted by the API
  mcp?: true; // an MCP server: timed from spawn to its answer to `initialize`
  samples: number[];
}

// curl is a reference only: without it the row is left out rather than the run refused.
const curlFound = spawnSync('curl', ['--version'], { stdio: 'ignore' }).error === undefined;

const refreshRuns = { refresh: 0, dpopRefresh: 0 };
const sandboxOfRefreshHome = { refresh: refreshSandbox, dpopRefresh: dpopRefreshSandbox };

/** A case that must refresh first: it waits for the home's access token to expire, and checks one refresh grant per run. */
function refreshFirst(name: string, home: 'refresh' | 'dpopRefresh', budget: number): Case {
  return {
    name,
    argv: [NODE, BIN, 'token'],
    home,
    budget,
    samples: [],
    before: async () => {
      const wait = lastRefreshEnd[home] + REFRESH_GAP_MS - Date.now();
      if (wait > 0) await sleep(wait);
    },
    // Each run must have refreshed exactly once, or its time says nothing about refreshing.
    check: async (run) => {
      lastRefreshEnd[home] = Date.now();
      if (!/^\S+\n$/.test(run.stdout)) fail(`${name} printed something other than one token line.`);
      refreshRuns[home] += 1;
      const refreshes = await countEvents(sandboxOfRefreshHome[home], isRefreshGrant, refreshRuns[home]);
      if (refreshes !== refreshRuns[home]) fail(`run ${refreshRuns[home]} of "${name}" made the sandbox see ${refreshes} refresh grants in all, not ${refreshRuns[home]}.`);
    },
  };
}

const cases: Case[] = [
  { name: 'node -e 0', argv: [NODE, '-e', '0'], home: 'file', samples: [] },
  {
    name: 'school token (file store)',
    argv: [NODE, BIN, 'token'],
    home: 'file',
    budget: 1.15,
    samples: [],
    check: (run) => {
      if (!/^\S+\n$/.test(run.stdout)) fail('school token printed something other than one token line.');
    },
  },
  {
    name: 'school token (keychain)',
    argv: [NODE, BIN, 'token'],
    home: 'keychain',
    budget: 1.4,
    samples: [],
    check: (run) => {
      if (!/^\S+\n$/.test(run.stdout)) fail('school token (keychain) printed something other than one token line.');
    },
  },
  {
    name: 'school token --json',
    argv: [NODE, BIN, 'token', '--json'],
    home: 'file',
    budget: 1.2,
    samples: [],
    check: (run) => {
      const printed = parsedJson('school token --json', run.stdout);
      if (typeof printed !== 'object' || printed === null || !('access_token' in printed)) fail('school token --json printed no access_token.');
    },
  },
  refreshFirst('school token, refresh first', 'refresh', 1.6),
  // A DPoP row costs what a proof costs (WebCrypto started, the key imported, a proof signed), about
  // 10-20 ms here; its budget keeps that cost from growing, the bearer rows keep theirs unchanged.
  refreshFirst('school token, refresh first (DPoP)', 'dpopRefresh', 1.8),
  {
    name: 'school call /api/courses',
    argv: [NODE, BIN, 'call', '/api/courses'],
    home: 'file',
    budget: 1.45,
    getsCourses: true,
    samples: [],
    check: (run) => {
      parsedJson('school call /api/courses', run.stdout);
    },
  },
  {
    name: 'school call /api/courses (DPoP)',
    argv: [NODE, BIN, 'call', '/api/courses'],
    home: 'dpop',
    budget: 1.6,
    samples: [],
    check: (run) => {
      parsedJson('school call /api/courses (DPoP)', run.stdout);
    },
  },
  ...(curlFound
    ? [
        {
          name: 'curl, same token and URL',
          argv: ['curl', '-sSf', '-H', '@-', coursesUrl],
          home: 'file',
          input: curlHeaders,
          getsCourses: true,
          samples: [],
          check: (run) => {
            parsedJson('curl', run.stdout);
          },
        } satisfies Case,
      ]
    : []),
  { name: 'school --help', argv: [NODE, BIN, '--help'], home: 'file', budget: 1.3, samples: [] },
  {
    name: `school api <op> --dry-run (${API500_OPERATIONS} operations)`,
    argv: api500DryRun,
    home: 'api500',
    budget: 1.5,
    samples: [],
    check: (run) => {
      if (!run.stdout.startsWith('POST http://127.0.0.1:') || !run.stdout.includes('"seats": 30')) fail('school api --dry-run did not print the request.');
    },
  },
  {
    name: "school api <op> --dry-run, GitHub's description, first run",
    argv: githubDryRun('githubFirst'),
    home: 'githubFirst',
    budget: 4,
    samples: [],
    // Nothing cached: a fresh configuration and cache every time.
    before: async () => rmSync(homes.githubFirst, { recursive: true, force: true }),
    check: githubCheck,
  },
  {
    name: "school api <op> --dry-run, GitHub's description, cached",
    argv: githubDryRun('githubCached'),
    home: 'githubCached',
    budget: 1.5,
    samples: [],
    check: githubCheck,
  },
  {
    // import { openSession } from 'school', open the session and print its cached token.
    name: 'library: openSession + token',
    argv: [NODE, LIBRARY_SCRIPT],
    home: 'file',
    budget: 1.25,
    samples: [],
    check: (run) => {
      if (!/^\S+\n$/.test(run.stdout)) fail('the library script printed something other than one token line.');
    },
  },
  {
    name: 'school mcp, spawn to initialize',
    argv: [NODE, BIN, 'mcp'],
    home: 'file',
    mcp: true,
    samples: [],
    check: (run) => {
      if (!/"serverInfo":\{"name":"school"/.test(run.stdout)) fail('school mcp did not answer initialize.');
    },
  },
  {
    name: 'minimal SDK server, spawn to initialize',
    argv: [NODE, MINIMAL_MCP],
    home: 'file',
    mcp: true,
    samples: [],
    check: (run) => {
      if (!/"serverInfo":\{"name":"minimal"/.test(run.stdout)) fail('the minimal MCP server did not answer initialize.');
    },
  },
];
/** `school mcp`'s start-up against the minimal server's: at most this ratio. */
const MCP_GOAL = 1.3;

const ONLY = process.env.BENCH_ONLY;
if (ONLY) {
  const kept = cases.filter((c, i) => i === 0 || c.name.includes(ONLY));
  if (kept.length === 1) fail(`BENCH_ONLY="${ONLY}" names no case.`);
  cases.splice(0, cases.length, ...kept);
}

// The same cases with an earlier build, interleaved with these in every round.
if (binBefore) {
  for (let i = cases.length - 1; i >= 0; i--) {
    const c = cases[i];
    // An earlier build may not speak DPoP: the DPoP rows have no before.
    if (c.argv[1] !== BIN || c.home === 'dpop' || c.home === 'dpopRefresh' || c.home === 'api500' || c.home.startsWith('github')) continue;
    cases.splice(i + 1, 0, { ...c, name: `${c.name} [before]`, argv: [c.argv[0], binBefore, ...c.argv.slice(2)], budget: undefined, samples: [] });
  }
}

async function runCase(c: Case): Promise<number> {
  await c.before?.();
  const run = c.mcp ? await timedInitialize(c.argv, envs[c.home]) : timedRun(c.argv, envs[c.home], c.input);
  expectSuccess(c.name, c.argv, run);
  await c.check?.(run);
  return run.ms;
}

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rounds

const startedAt = Date.now();
console.error(`bench: ${WARMUPS} warm-up and ${RUNS} timed rounds of ${cases.length} cases...`);
for (let round = 0; round < WARMUPS + RUNS; round++) {
  for (const c of shuffled(cases)) {
    const ms = await runCase(c);
    if (round >= WARMUPS) c.samples.push(ms);
  }
  if (process.stderr.isTTY) process.stderr.write(`\rbench: round ${round + 1}/${WARMUPS + RUNS}`);
}
if (process.stderr.isTTY) process.stderr.write('\n');

// Every `school call` and every curl reached the API with a token the API accepted.
const courseGets = (WARMUPS + RUNS) * cases.filter((c) => c.getsCourses).length;
const authenticatedGets = await countEvents(apiSandbox, isAuthenticatedCoursesGet, courseGets);
if (authenticatedGets !== courseGets) fail(`the API saw ${authenticatedGets} authenticated GET /api/courses, not ${courseGets}.`);
const apiRefreshes = sandboxEvents(apiSandbox).filter(isRefreshGrant).length;
if (apiRefreshes !== 0) fail(`the cases meant to use a valid token refreshed it ${apiRefreshes} times.`);
// Every DPoP call was accepted with a proof, and needed no refresh.
const dpopGets = (WARMUPS + RUNS) * cases.filter((c) => c.home === 'dpop').length;
const provenGets = await countEvents(dpopSandbox, (e) => isAuthenticatedCoursesGet(e) && e.scheme === 'dpop' && typeof e.dpop === 'string', dpopGets);
if (provenGets !== dpopGets) fail(`the DPoP sandbox's API saw ${provenGets} GET /api/courses with a proof, not ${dpopGets}.`);
if (sandboxEvents(dpopSandbox).some(isRefreshGrant)) fail('the DPoP call case refreshed its token.');
const dpopRefreshes = sandboxEvents(dpopRefreshSandbox).filter((e) => isRefreshGrant(e) && e.token_type === 'DPoP' && typeof e.dpop === 'string').length;
if (dpopRefreshes !== refreshRuns.dpopRefresh) fail(`${dpopRefreshes} of the ${refreshRuns.dpopRefresh} DPoP refreshes carried a proof and got a bound token.`);

// Peak RSS of `school token` (file store), by /usr/bin/time where it exists, else by a preload
// that reports the process's own maxRSS on a spare descriptor as it exits.
const TIME_BIN = '/usr/bin/time';
const timeFound = existsSync(TIME_BIN);
const rssMethod = timeFound ? `${TIME_BIN} -f %M` : 'process.resourceUsage().maxRSS (preload)';
const rssPreload = join(scratch, 'report-max-rss.cjs');
if (!timeFound) writeFileSync(rssPreload, "process.on('exit', () => require('node:fs').writeSync(3, String(process.resourceUsage().maxRSS)));\n");
/** The peak RSS of each of RSS_RUNS runs of a school command, in KiB. */
function peakRssKiB(what: string, args: string[], env: NodeJS.ProcessEnv, before?: () => void): number[] {
  const samples: number[] = [];
  for (let i = 0; i < RSS_RUNS; i++) {
    before?.();
    const r = timeFound
      ? spawnSync(TIME_BIN, ['-f', '%M', NODE, BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      : spawnSync(NODE, ['--require', rssPreload, BIN, ...args], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    if (r.status !== 0) fail(`measuring the peak RSS of ${what} failed: ${lastWords(r.stderr)}`);
    const reported = timeFound ? r.stderr.trim().split('\n').at(-1) : String(r.output[3] ?? '');
    const kib = Number(reported);
    if (!Number.isFinite(kib) || kib <= 0) fail(`could not read a peak RSS from "${reported}".`);
    samples.push(kib);
  }
  return samples;
}
const rssKiB = peakRssKiB('school token', ['token'], envs.file);
// The first run on GitHub's description: the whole document read, indexed and cached, nothing cached before.
const githubRssKiB = peakRssKiB("the first run on GitHub's description", githubDryRun('githubFirst').slice(2), envs.githubFirst, () => rmSync(homes.githubFirst, { recursive: true, force: true }));
const elapsedS = Math.round((Date.now() - startedAt) / 1000);
stopSandboxes();

// ---------------------------------------------------------------------------------------------
// Report

// The q-quantile by linear interpolation between the closest ranks (q = 0.5: the median).
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const below = Math.floor(at);
  return s[below] + (s[Math.min(below + 1, s.length - 1)] - s[below]) * (at - below);
}
const median = (xs: number[]) => quantile(xs, 0.5);

const baseline = median(cases[0].samples);
const results = cases.map((c) => {
  const medianMs = median(c.samples);
  const ratio = medianMs / baseline;
  const ok = c.budget === undefined ? undefined : ratio <= c.budget;
  return { name: c.name, command: shown(c.argv), home: c.home, budget: c.budget, medianMs, ratio, ok, samplesMs: c.samples };
});
const rssMiB = median(rssKiB) / 1024;
const githubRssMiB = median(githubRssKiB) / 1024;
const rssOk = rssMiB <= RSS_BUDGET_MIB && githubRssMiB <= GITHUB_RSS_BUDGET_MIB;

// The spread (middle half of the samples) says how far to trust a median: on a quiet machine it
// is a few milliseconds. With BENCH_COMPARE, a "before" column follows the ratio.
const withBefore = (row: string[], before: string) => (earlier ? [...row.slice(0, 4), before, ...row.slice(4)] : row);
const rows: string[][] = [withBefore(['case', 'median ms', 'p25-p75 ms', 'ratio', 'budget', 'result'], 'before')];
for (const r of results) {
  const spread = `${quantile(r.samplesMs, 0.25).toFixed(0)}-${quantile(r.samplesMs, 0.75).toFixed(0)}`;
  rows.push(
    withBefore(
      [r.name, r.medianMs.toFixed(1), spread, r.ratio.toFixed(2), r.budget === undefined ? '-' : `${r.budget.toFixed(2)}`, r.ok === undefined ? 'reference' : r.ok ? 'ok' : 'OVER'],
      earlier?.get(r.name) ?? '-',
    ),
  );
}
rows.push(withBefore([RSS_ROW, '-', '-', `${rssMiB.toFixed(1)} MiB`, `${RSS_BUDGET_MIB} MiB`, rssMiB <= RSS_BUDGET_MIB ? 'ok' : 'OVER'], earlier?.get(RSS_ROW) ?? '-'));
rows.push(
  withBefore([GITHUB_RSS_ROW, '-', '-', `${githubRssMiB.toFixed(1)} MiB`, `${GITHUB_RSS_BUDGET_MIB} MiB`, githubRssMiB <= GITHUB_RSS_BUDGET_MIB ? 'ok' : 'OVER'], earlier?.get(GITHUB_RSS_ROW) ?? '-'),
);
const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => row[col].length)));
const line = (row: string[]) => `| ${row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join(' | ')} |`;
console.log(line(rows[0]));
console.log(`| ${widths.map((w, col) => (col === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`);
for (const row of rows.slice(1)) console.log(line(row));
const mcpOf = (name: string) => results.find((r) => r.name === name)?.medianMs;
const mcpMs = mcpOf('school mcp, spawn to initialize');
const minimalMs = mcpOf('minimal SDK server, spawn to initialize');
// With BENCH_ONLY, a pair not measured has no ratio to hold.
const mcpRatio = mcpMs !== undefined && minimalMs !== undefined ? mcpMs / minimalMs : undefined;
const mcpOk = mcpRatio === undefined || mcpRatio <= MCP_GOAL;
console.log('');
if (mcpRatio !== undefined) console.log(`school mcp / minimal SDK server, spawn to initialize: ${mcpRatio.toFixed(2)} (goal at most ${MCP_GOAL.toFixed(2)}): ${mcpOk ? 'ok' : 'OVER'}`);
console.log('');
for (const r of results) console.log(`  ${r.name}: ${r.command}${r.name === 'node -e 0' ? '' : `  [${r.home}]`}`);
for (const [home, note] of Object.entries(homeNotes)) console.log(`  [${home}] ${note}`);
console.log('');
console.log(`Machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.os}, load average at start ${machine.loadAverage.join(' ')}`);
console.log(
  `Runs: ${RUNS} timed rounds after ${WARMUPS} warm-up, each case once per round in random order (${elapsedS} s); ` +
    `ratio = median / median of node -e 0; peak RSS: median of ${RSS_RUNS} runs by ${rssMethod}.`,
);
if (machine.loadAverage[0] > machine.cores) {
  console.log(`Busy machine: a load average of ${machine.loadAverage[0]} on ${machine.cores} cores at the start inflates every ratio; measure again when it is quiet.`);
}
if (!curlFound) console.log('No curl on the PATH: its reference row is left out.');
if (refreshRuns.refresh + refreshRuns.dpopRefresh > 0)
  console.log(`Refresh rows: every run refreshed (${refreshRuns.refresh} and ${refreshRuns.dpopRefresh} refresh grants seen by the sandboxes; access tokens live ${SHORT_TTL_S} s).`);
const medianOf = (name: string) => results.find((r) => r.name === name)?.medianMs;
const proofCost = (bound: string, bearer: string) => `${(medianOf(bound)! - medianOf(bearer)!).toFixed(1)} ms`;
const dpopRows = ['school token, refresh first (DPoP)', 'school token, refresh first', 'school call /api/courses (DPoP)', 'school call /api/courses'];
if (dpopRows.every((name) => medianOf(name) !== undefined))
  console.log(
    `What DPoP adds (median against median): a refresh ${proofCost('school token, refresh first (DPoP)', 'school token, refresh first')}, ` +
      `a call ${proofCost('school call /api/courses (DPoP)', 'school call /api/courses')} (WebCrypto started, the key imported, a proof signed; the call also loads oauth4webapi).`,
  );

const jsonPath = process.env.BENCH_JSON;
if (jsonPath) {
  writeFileSync(
    jsonPath,
    `${JSON.stringify(
      {
        date: new Date(startedAt).toISOString(),
        machine,
        runs: RUNS,
        warmups: WARMUPS,
        smoke: SMOKE,
        baselineMs: baseline,
        cases: results,
        peakRss: { method: rssMethod, budgetMiB: RSS_BUDGET_MIB, medianMiB: rssMiB, ok: rssMiB <= RSS_BUDGET_MIB, samplesKiB: rssKiB },
        peakRssGithubFirstRun: { method: rssMethod, budgetMiB: GITHUB_RSS_BUDGET_MIB, medianMiB: githubRssMiB, ok: githubRssMiB <= GITHUB_RSS_BUDGET_MIB, samplesKiB: githubRssKiB },
      },
      null,
      2,
    )}\n`,
  );
  console.error(`bench: results written to ${jsonPath}`);
}

const over = results.some((r) => r.ok === false) || !rssOk || !mcpOk;
if (over && SMOKE) console.error('bench: smoke run: a budget looks over, but a few runs on a shared machine prove nothing.');
process.exit(over && !SMOKE ? 1 : 0);
