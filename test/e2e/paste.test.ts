import { spawn } from 'node:child_process';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '@school/sandbox/browser-driver';
import { SCHOOL_BIN, forwardProxy, shellCommand, userEnv, useSandbox } from './harness.js';

const sandbox = useSandbox();

/**
 * Signs in like a browser on another machine: all its traffic goes through a proxy that reaches
 * the sandbox but not this machine's callback port, so the final redirect never arrives here.
 */
async function signInElsewhere(authUrl: string): Promise<string> {
  const callbackPort = new URL(new URL(authUrl).searchParams.get('redirect_uri')!).port;
  const proxy = await forwardProxy({ unreachable: (target) => target.port === callbackPort });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, `--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'],
  });
  try {
    const page = await browser.newPage();
    const submit = async (selector: string) => {
      const before = page.url();
      await Promise.all([page.waitForURL((u) => u.href !== before, { waitUntil: 'load' }), page.click(selector)]);
    };
    await page.goto(authUrl, { waitUntil: 'load' });
    await page.fill('input[name="username"]', 'ada');
    await page.fill('input[name="password"]', 'lovelace');
    await submit('#sign-in');
    await submit('#approve');
    // The proxy records `METHOD url`; the one to this machine's callback port is the redirect.
    const captured = proxy.seen.map((line) => line.slice(line.indexOf(' ') + 1)).find((url) => new URL(url).port === callbackPort);
    if (!captured) throw new Error(`no redirect to the callback; the browser is at ${page.url()}`);
    return captured;
  } finally {
    await browser.close();
    await proxy.close();
  }
}

describe('school login --no-browser on a terminal', () => {
  it('accepts the redirect address pasted back, after refusing a wrong one', async () => {
    const env = userEnv();
    delete env.BROWSER;
    const command = shellCommand(process.execPath, SCHOOL_BIN, 'login', '--base-url', sandbox.baseUrl, '--no-browser', '--timeout', '60');
    // `script` gives the CLI a real terminal: stdin is a TTY, so it offers to read a pasted address.
    // Its own process group, so a failure below never leaves the CLI running.
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let screen = '';
    child.stdout.on('data', (c) => (screen += c));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    const waitFor = async (re: RegExp) => {
      for (let i = 0; i < 800; i++) {
        const m = screen.replace(/\r/g, '').match(re);
        if (m) return m;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`not seen: ${re}\n${screen}`);
    };
    try {
      const [, authUrl] = await waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)$/m);
      await waitFor(/paste its full address here/);
      const redirect = await signInElsewhere(authUrl);
      child.stdin.write('https://not-the-callback.example/\n');
      await waitFor(/That is not the address the sign-in redirected to/);
      child.stdin.write(`${redirect}\n`);
      expect(await exited).toBe(0);
      expect(screen).toContain('Logged in as Ada Lovelace ada@example.edu');
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  });
});
