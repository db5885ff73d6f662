// Typed entry point to the browser driver for in-process use by tests. The implementation
// lives in browser-driver.mjs so that the very same code also runs under plain `node` as
// the BROWSER command of the CLI under test.
// @ts-expect-error -- plain ESM module without type declarations
import * as impl from './browser-driver.mjs';
import { fileURLToPath } from 'node:url';
import { shellCommand } from './command-line.js';

export interface DriveLoginOptions {
  user?: string;
  password?: string;
  consent?: 'approve' | 'deny';
  /** The user code to type where a device verification page asks for one. */
  userCode?: string;
  timeoutMs?: number;
  log?: (line: string) => void;
  /** A running Chromium server's WebSocket endpoint (launchBrowserServer); else BROWSER_DRIVER_ENDPOINT, else a browser of its own. */
  endpoint?: string;
}

export interface DriveLoginResult {
  finalUrl: string;
  finalText: string;
}

export const driveLogin: (url: string, options?: DriveLoginOptions) => Promise<DriveLoginResult> = impl.driveLogin;
/** A shared Chromium (`endpoint`) and the sign-in service beside it (`service`, for BROWSER_DRIVER_SERVICE). */
export const launchBrowserServer: () => Promise<{ endpoint: string; service: string; close(): Promise<void> }> = impl.launchBrowserServer;
export const CHROMIUM_PATH: string = impl.CHROMIUM_PATH;
export const CHROMIUM_ARGS: readonly string[] = impl.CHROMIUM_ARGS;

export const BROWSER_DRIVER_SCRIPT = fileURLToPath(new URL('./browser-driver.mjs', import.meta.url));
// The command line that makes a CLI use the driver as its browser (`$BROWSER <url>`), its words
// quoted: the checkout's path may hold spaces.
export const BROWSER_COMMAND = shellCommand(process.execPath, BROWSER_DRIVER_SCRIPT);
