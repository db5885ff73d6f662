// `npm run demo`: the CLI end to end on the embedded sandbox, as a short transcript. It uses a
// throwaway config dir (your own ~/.config/school is not touched) and, without a display, a
// headless Chromium that signs in as the sandbox user. Exits non-zero if any step misbehaves.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '@school/sandbox';
import { BROWSER_COMMAND } from '@school/sandbox/browser-driver';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin', 'school.cjs');
const home = mkdtempSync(join(tmpdir(), 'school-demo-'));
const headless = process.env.CI === 'true' || (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY);

const sandbox = await startSandbox({ quiet: true });
// The transcript shows a person at a terminal: a CI job running the demo is not one (login would
// rightly refuse to wait for a browser there), so CI is left out of the CLI's environment.
const env: NodeJS.ProcessEnv = { ...process.env, CI: undefined, SCHOOL_CONFIG_DIR: join(home, 'config'), SCHOOL_PROFILE: undefined, SCHOOL_TOKEN: undefined, SCHOOL_REFRESH_TOKEN: undefined };
if (headless) env.BROWSER = BROWSER_COMMAND;

const dim = (s: string) => (process.stdout.isTTY ? `\u001b[2m${s}\u001b[22m` : s);
const bold = (s: string) => (process.stdout.isTTY ? `\u001b[1m${s}\u001b[22m` : s);

console.log(`School sandbox running at ${sandbox.baseUrl} (sign in as ada / lovelace).`);
console.log(`Demo config dir: ${env.SCHOOL_CONFIG_DIR}`);
console.log(headless ? 'No display: a headless Chromium signs in for you.\n' : 'Your browser will open: sign in as ada / lovelace and approve.\n');

let failures = 0;
/** What the last step wrote on stderr. */
let lastStderr = '';
async function step(args: string[], expectCode: number, show: (out: string) => string = (o) => o): Promise<string> {
  console.log(bold(`$ school ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}`));
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['inherit', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => {
    err += c;
    process.stdout.write(dim(String(c)));
  });
  const code: number = await new Promise((r) => child.on('close', (c) => r(c ?? 1)));
  lastStderr = err;
  if (out) process.stdout.write(`${show(out).replace(/\n?$/, '\n')}`);
  if (code !== 0) console.log(dim(`(exit ${code})`));
  if (code !== expectCode) {
    failures += 1;
    console.log(`!! expected exit ${expectCode}, got ${code}${err ? '' : ' (no message)'}`);
  }
  console.log('');
  return out;
}

try {
  await step(['login', '--base-url', sandbox.baseUrl], 0);
  await step(['whoami'], 0);
  await step(['status'], 0);
  await step(['token'], 0, (t) => `${t.slice(0, 8)}… (${t.trim().length} characters; shortened here)`);
  await step(['call', '/api/courses'], 0);
  await step(['call', '-X', 'POST', '/api/courses', '-f', 'title=Difference Engines'], 4);
  // The step-up is the very command the 403 named: the scopes held now, plus the missing one.
  const hinted = /^school (login --add-scope \S+)$/m.exec(lastStderr)?.[1].split(' ');
  if (!hinted) {
    failures += 1;
    console.log('!! the 403 did not name a `school login --add-scope …` command\n');
  }
  await step(hinted ?? ['login', '--add-scope', 'courses:write'], 0);
  if (/dropped/.test(lastStderr)) {
    failures += 1;
    console.log('!! the step-up login dropped scopes the profile had\n');
  }
  await step(['call', '-X', 'POST', '/api/courses', '-f', 'title=Difference Engines', '-F', 'seats=30'], 0);
  await step(['call', '--list'], 0);
  await step(['logout'], 0);
  await step(['token'], 4);
} finally {
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
}
console.log(failures ? `${failures} step(s) did not behave as expected.` : 'Every step behaved as expected.');
process.exit(failures ? 1 : 0);
