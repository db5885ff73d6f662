// Start-up budget of `school token`, the command scripts call in loops: medians of interleaved
// runs against `node -e 0` on the same machine. Run inside a keyring session (`npm run bench`).
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '@school/sandbox';
import { BROWSER_DRIVER_SCRIPT } from '@school/sandbox/browser-driver';

const RUNS = Number(process.env.BENCH_RUNS ?? 40);
const BIN = resolve(import.meta.dirname, '..', 'bin', 'school.cjs');
const BUDGETS = { file: 1.2, keychain: 1.45 };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
}

const sandbox = await startSandbox({ quiet: true });
const envs: Record<'file' | 'keychain', NodeJS.ProcessEnv> = { file: {}, keychain: {} };
for (const kind of ['file', 'keychain'] as const) {
  const home = mkdtempSync(join(tmpdir(), 'school-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    SCHOOL_CONFIG_DIR: join(home, 'config'),
    BROWSER: `node ${BROWSER_DRIVER_SCRIPT}`,
  };
  // Async: the sandbox answers from this very process.
  await promisify(execFile)(process.execPath, [BIN, 'login', '--base-url', sandbox.baseUrl, ...(kind === 'file' ? ['--insecure-storage'] : [])], { env });
  envs[kind] = env;
}

const samples = { node: [] as number[], file: [] as number[], keychain: [] as number[] };
for (let i = 0; i < 3; i++) time(process.execPath, [BIN, 'token'], envs.file); // warm the file cache
for (let i = 0; i < RUNS; i++) {
  samples.node.push(time(process.execPath, ['-e', '0'], envs.file));
  samples.file.push(time(process.execPath, [BIN, 'token'], envs.file));
  samples.keychain.push(time(process.execPath, [BIN, 'token'], envs.keychain));
}
await sandbox.close();

const base = median(samples.node);
let over = false;
console.log(`node -e 0: ${base.toFixed(1)} ms (median of ${RUNS})`);
for (const kind of ['file', 'keychain'] as const) {
  const m = median(samples[kind]);
  const ratio = m / base;
  const ok = ratio <= BUDGETS[kind];
  over ||= !ok;
  console.log(`school token (${kind}): ${m.toFixed(1)} ms = ${ratio.toFixed(2)}x  budget ${BUDGETS[kind]}x  ${ok ? 'ok' : 'OVER BUDGET'}`);
}
process.exit(over ? 1 : 0);
