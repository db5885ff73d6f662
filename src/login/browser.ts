import { messageOf, errnoCode } from '../errors.js';
import type { BrowserOpener } from '../types/browser.js';
import type { Env } from '../types/env.js';
import { importPackage, requireCommonJs } from '../util/require.js';

export type { BrowserOpener };

/** Splits a command line the way a shell would for simple quoting (no expansions). */
export function splitCommandLine(line: string): string[] {
  const args: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  let has = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
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

async function spawnDetached(command: string, args: string[]): Promise<{ opened: boolean; reason?: string }> {
  const { spawn }: typeof import('node:child_process') = requireCommonJs('node:child_process');
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore' });
      child.once('error', (err) => resolve({ opened: false, reason: `${command}: ${errnoCode(err) ?? err.message}` }));
      child.once('spawn', () => {
        child.unref();
        resolve({ opened: true });
      });
    } catch (err) {
      resolve({ opened: false, reason: messageOf(err) });
    }
  });
}

/** `BROWSER` (a command line; the URL is appended as its last argument), else the system opener. */
export function systemBrowser(env: Env, platform = process.platform): BrowserOpener {
  return {
    async open(url) {
      const browser = env.BROWSER?.trim();
      if (browser) {
        const [command, ...args] = splitCommandLine(browser);
        if (!command) return { opened: false, reason: 'BROWSER is empty' };
        return spawnDetached(command, [...args, url]);
      }
      if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
        return { opened: false, reason: env.SSH_CONNECTION ? 'this is an SSH session without a display' : 'no graphical display' };
      }
      try {
        const { default: open } = await importPackage<typeof import('open')>('open');
        const child = await open(url, { wait: false });
        child.once('error', () => undefined);
        child.unref();
        return { opened: true };
      } catch (err) {
        return { opened: false, reason: messageOf(err) };
      }
    },
  };
}
