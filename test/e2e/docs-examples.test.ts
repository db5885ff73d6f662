// Every example of the documentation that can run against the sandbox does, as it is printed: a
// fenced block whose info string is exactly `sh runnable`, in README.md or docs/*.md. The blocks of
// one file run in order, in bash with `set -euo pipefail`, against a fresh sandbox of their own,
// sharing a fresh config dir and working directory; `school` is on the PATH, BROWSER signs in
// headless, the test keyring is unlocked, and `https://your-school.example` is the sandbox.
// A block marked `sh runnable in-clone` is what a person types in the clone, in a terminal: it runs
// there, with job control on as in an interactive shell, and starts the sandbox it uses itself.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Env, REPO, SCHOOL_BIN, type RunResult, useSandbox, userEnv } from './harness.js';

const PLACEHOLDER = 'https://your-school.example';
const INFO = 'sh runnable';
const INFO_IN_CLONE = 'sh runnable in-clone';

interface Block {
  /** The line of the opening fence, counted from 1. */
  line: number;
  code: string;
  /** Run in the clone, as typed in a terminal there (`sh runnable in-clone`). */
  inClone?: true;
}

/** The `sh runnable` blocks of a Markdown text, with the line each starts on. */
function runnableBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let open: { fence: string; info: string; line: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    if (!open) {
      const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(text);
      if (m) open = { fence: m[1]!, info: m[2]!.trim(), line: i + 1, body: [] };
      return;
    }
    const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(text);
    if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      if (open.info === INFO) blocks.push({ line: open.line, code: open.body.join('\n') });
      if (open.info === INFO_IN_CLONE) blocks.push({ line: open.line, code: open.body.join('\n'), inClone: true });
      open = undefined;
      return;
    }
    open.body.push(text);
  });
  return blocks;
}

/** A shell-quoted word. */
const quoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** A directory holding a `school` that runs the built CLI, for the PATH of the examples. */
function schoolOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'school-docs-bin-'));
  const shim = join(dir, 'school');
  writeFileSync(shim, `#!/bin/sh\nexec ${quoted(process.execPath)} ${quoted(SCHOOL_BIN)} "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/** Runs one block in bash, in the directory and environment given. */
function runBlock(block: Block, baseUrl: string, env: Env, cwd: string, timeoutMs = 120_000): Promise<RunResult> {
  const script = `set -euo pipefail${block.inClone ? ' -m' : ''}\n${block.code.split(PLACEHOLDER).join(baseUrl)}\n`;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const child = spawn('bash', ['-c', script], { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
  });
}

/** Fails with the block's file and line, and what it printed, unless it exited 0. */
function expectBlockPassed(file: string, block: Block, res: RunResult): void {
  if (res.code === 0) return;
  throw new Error(`${file}:${block.line}: the example exited ${res.code}\n--- stderr ---\n${res.stderr}--- stdout ---\n${res.stdout}`);
}

const documents = [
  'README.md',
  ...readdirSync(join(REPO, 'docs'))
    .filter((n) => n.endsWith('.md'))
    .sort()
    .map((n) => `docs/${n}`),
];
const examples = documents.map((file) => ({ file, blocks: runnableBlocks(readFileSync(join(REPO, file), 'utf8')) })).filter((d) => d.blocks.length > 0);
const binDir = schoolOnPath();

describe('the runner of documented examples', () => {
  it('finds only blocks whose info string is exactly `sh runnable` or `sh runnable in-clone`, with the line of their fence', () => {
    const text = [
      '# t',
      '```sh',
      'echo plain',
      '```',
      '',
      '```sh runnable',
      'echo one',
      'echo two',
      '```',
      '````sh runnable',
      '```',
      'inner',
      '````',
      '```sh runnable-not',
      'x',
      '```',
      '```sh runnable in-clone',
      'npm run sandbox &',
      '```',
    ].join('\n');
    expect(runnableBlocks(text)).toEqual([
      { line: 6, code: 'echo one\necho two' },
      { line: 10, code: '```\ninner' },
      { line: 17, code: 'npm run sandbox &', inClone: true },
    ]);
  });

  it('fails a block that exits non-zero, naming its file and line; an unset variable or a failing pipe counts', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'school-docs-'));
    const env = { PATH: process.env.PATH };
    for (const code of ['true\nfalse\necho after', 'echo "$NOT_SET_ANYWHERE"', 'false | cat']) {
      const block = { line: 42, code };
      const res = await runBlock(block, 'http://127.0.0.1:9', env, cwd);
      expect(res.code, code).not.toBe(0);
      expect(() => expectBlockPassed('docs/broken.md', block, res)).toThrow(/^docs\/broken\.md:42: the example exited 1/);
    }
    const ok = { line: 1, code: `test "$(echo ${PLACEHOLDER})" = http://127.0.0.1:9` };
    expect(() => expectBlockPassed('docs/ok.md', ok, { code: 0, stdout: '', stderr: '' })).not.toThrow();
    expect((await runBlock(ok, 'http://127.0.0.1:9', env, cwd)).code).toBe(0);
  });

  it('has examples to run, the README among them', () => {
    expect(examples.map((d) => d.file)).toContain('README.md');
  });
});

for (const { file, blocks } of examples) {
  describe(`the examples of ${file}`, () => {
    const sandbox = useSandbox();
    const home = mkdtempSync(join(tmpdir(), 'school-docs-'));
    const cwd = join(home, 'work');
    mkdirSync(cwd);
    const env = (): Env => {
      const base = userEnv({ HOME: home, SCHOOL_CONFIG_DIR: join(home, 'config'), SCHOOL_BASE_URL: sandbox.baseUrl });
      return { ...base, PATH: [binDir, dirname(process.execPath), base.PATH].filter(Boolean).join(delimiter) };
    };
    for (const block of blocks) {
      it(`${file}:${block.line}`, async () => {
        if (!block.inClone) return expectBlockPassed(file, block, await runBlock(block, sandbox.baseUrl, env(), cwd));
        // In the clone, against the sandbox it starts: no SCHOOL_BASE_URL of the file's sandbox.
        const { SCHOOL_BASE_URL: _, ...own } = env();
        expectBlockPassed(file, block, await runBlock(block, sandbox.baseUrl, own, REPO));
      });
    }
  });
}
