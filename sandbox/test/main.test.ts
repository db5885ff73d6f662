import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { afterAll, describe, expect, it } from 'vitest';

import { shellCommand } from '../src/command-line.js';
import { defaultUsers } from '../src/users.js';
import { SANDBOX_VARIANTS } from '../src/variants.js';

const bin = fileURLToPath(new URL('../bin/school-sandbox.mjs', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'sandbox-main-test-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

function start(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const firstLine = new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine, exited, stderr: () => stderr };
}

describe('school-sandbox', () => {
  it('prints the base URL first on stdout, writes events as JSON lines and stops cleanly on SIGTERM', async () => {
    const events = join(scratch, 'events.jsonl');
    const run = start(['--split-origins', '--alt-paths', '--events', events]);
    const baseUrl = await run.firstLine;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const prm = await (await fetch(`${baseUrl}/.well-known/oauth-protected-resource`)).json();
    const issuer = prm.authorization_servers[0];
    expect(issuer).not.toBe(baseUrl);
    const md = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
    expect(md.token_endpoint).toBe(`${issuer}/connect/token`);
    expect(run.stderr()).toContain(`School sandbox running at ${baseUrl}`);
    expect(run.stderr()).toContain(issuer);
    expect(run.stderr()).toContain('ada');
    expect(run.stderr()).not.toContain('Unsupported runtime');

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const lines = readFileSync(events, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.some((e) => e.type === 'request' && e.path === '/.well-known/oauth-protected-resource')).toBe(true);
    expect(lines.some((e) => e.type === 'metadata')).toBe(true);
  });

  it('shows its base URL once on a terminal', async () => {
    // Under `script`, stdout and stderr are one terminal, as with `npm run sandbox`.
    const child = spawn('script', ['-qec', shellCommand(process.execPath, bin, '--quiet'), '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    children.push(child);
    let screen = '';
    const ready = new Promise<void>((resolve) => {
      child.stdout!.on('data', (d) => {
        screen += d;
        if (screen.includes('Ctrl-C')) resolve();
      });
    });
    await ready;
    process.kill(-child.pid!, 'SIGTERM');
    const urls = screen.match(/http:\/\/127\.0\.0\.1:\d+(?![\d/])/g) ?? [];
    expect(urls.length).toBe(1);
    expect(screen).toContain('School sandbox running at the base URL above.');
  });

  it('honours --port and stops on SIGINT', async () => {
    const probe = spawn(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"]);
    const port = Number(await new Promise<string>((resolve) => probe.stdout!.once('data', (d) => resolve(String(d).trim()))));
    const run = start(['--port', String(port), '--quiet', '--no-rotation', '--access-ttl', '60']);
    expect(await run.firstLine).toBe(`http://127.0.0.1:${port}`);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  });

  it('rejects unknown arguments', async () => {
    const run = start(['--bogus']);
    await expect(run.firstLine).rejects.toThrow(/unknown argument --bogus/);
    expect(await run.exited).toBe(64);
  });

  it('--help explains how to start it, every option, its users, signing in without a display, and every variant', async () => {
    const child = spawn(process.execPath, [bin, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
    expect(out).toMatch(/^usage: npm run sandbox -- /);
    const source = readFileSync(fileURLToPath(new URL('../src/main.ts', import.meta.url)), 'utf8');
    const flags = [...source.matchAll(/case '(--[a-z-]+)':/g)].map((m) => m[1]!);
    expect(flags.length).toBeGreaterThan(8);
    for (const flag of flags) expect(out, flag).toMatch(new RegExp(`^  (-h, )?${flag}\\b.*\\S`, 'm'));
    for (const user of defaultUsers()) expect(out).toMatch(new RegExp(`^  ${user.username} / ${user.password} +${user.name}`, 'm'));
    for (const variant of SANDBOX_VARIANTS) expect(out, variant).toMatch(new RegExp(`^  ${variant} +\\S`, 'm'));
    // The sign-in helper's line, ready to paste: the driver of this checkout, quoted.
    const driver = fileURLToPath(new URL('../src/browser-driver.mjs', import.meta.url));
    expect(out).toContain(`export BROWSER="node '${driver}'"`);
    expect(out.split('\n').filter((line) => line.length > 110 && !line.startsWith('usage:'))).toEqual([]);
  });
});
