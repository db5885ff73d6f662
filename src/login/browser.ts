import type { ChildProcess } from 'node:child_process';
import { messageOf, errnoCode } from '../errors.js';
import type { BrowserOpened, BrowserOpener } from '../types/browser.js';
import type { Env } from '../types/env.js';
import { importPackage, requireCommonJs } from '../util/require.js';

export type { BrowserOpener };

/**
 * Splits a command line the way a shell would for simple quoting (no expansions). On Windows a
 * backslash separates folders (`C:\Program Files\…\firefox.exe`) and escapes nothing; quotes group
 * words there too.
 */
export function splitCommandLine(line: string, platform: NodeJS.Platform = process.platform): string[] {
  const escapes = platform !== 'win32';
  const args: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (escapes && c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (escapes && c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) args.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
    }
  }
  if (has || cur) args.push(cur);
  return args;
}

/** How long a browser command is watched for failing at once: a real opener hands the URL on, or stays, well within it. */
const BROWSER_FAILURE_WINDOW_MS = 2_000;

/**
 * How a started command fails at once: settles with its non-zero exit status (or the signal that
 * ended it) when it ends so within the window, else with undefined. It never keeps this process
 * alive: a login that ends meanwhile exits as it would.
 */
export function failureWithin(child: ChildProcess, name: string, windowMs = BROWSER_FAILURE_WINDOW_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), windowMs);
    timer.unref?.();
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ? `${name} exited with status ${code}` : signal ? `${name} was ended by ${signal}` : undefined);
    });
  });
}

async function spawnDetached(command: string, args: string[]): Promise<BrowserOpened> {
  const { spawn }: typeof import('node:child_process') = requireCommonJs('node:child_process');
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', (err) => resolve({ opened: false, reason: `${command}: ${errnoCode(err) ?? err.message}` }));
      child.once('spawn', () => {
        const failure = failureWithin(child, command);
        child.unref();
        resolve({ opened: true, failure });
      });
    } catch (err) {
      resolve({ opened: false, reason: messageOf(err) });
    }
  });
}

/** Whether this runs in an SSH session (OpenSSH sets these on Linux, macOS and Windows alike). */
export function overSsh(env: Env): boolean {
  return Boolean(env.SSH_CONNECTION || env.SSH_TTY || env.SSH_CLIENT);
}

/**
 * `BROWSER` (a command line; the URL is appended as its last argument), else the system opener.
 * The opener is not used where its browser would not be in front of the person: on Linux without
 * a display, and over SSH on macOS and Windows (whose opener shows the page on the remote
 * machine's desktop). On Linux a display over SSH is a forwarded one, in front of the person.
 */
export function systemBrowser(env: Env, platform = process.platform): BrowserOpener {
  return {
    async open(url) {
      const browser = env.BROWSER?.trim();
      if (browser) {
        const [command, ...args] = splitCommandLine(browser, platform);
        if (!command) return { opened: false, reason: 'BROWSER is empty' };
        // Node starts a .cmd or .bat only through cmd.exe, where the URL's & and % would be shell syntax.
        if (platform === 'win32' && /\.(cmd|bat)$/i.test(command)) {
          return {
            opened: false,
            reason: `BROWSER names a batch file (${command}), which cannot be started without a shell; set it to the browser's .exe, e.g. "C:\\Program Files\\Mozilla Firefox\\firefox.exe"`,
          };
        }
        return spawnDetached(command, [...args, url]);
      }
      if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
        return { opened: false, reason: env.SSH_CONNECTION ? 'this is an SSH session without a display' : 'no graphical display' };
      }
      if (platform !== 'linux' && overSsh(env)) {
        return { opened: false, reason: 'this is an SSH session: a browser opened here would show on the remote machine' };
      }
      try {
        const { default: open } = await importPackage<typeof import('open')>('open');
        const child = await open(url, { wait: false });
        child.once('error', () => undefined);
        const failure = failureWithin(child, 'the system opener');
        child.unref();
        return { opened: true, failure };
      } catch (err) {
        return { opened: false, reason: messageOf(err) };
      }
    },
  };
}
