#!/usr/bin/env node
// Drives the sandbox's sign-in and consent pages in a real headless Chromium.
//
// Used two ways:
//   * as the BROWSER command of the CLI under test: `node sandbox/src/browser-driver.mjs <url>`
//     (the CLI appends the URL and detaches, so everything worth knowing goes to the file
//     named by BROWSER_DRIVER_LOG and to the exit code);
//   * in-process through driveLogin(), re-exported with types by browser-driver.ts.
// It is plain ESM on purpose: it must start with `node` alone, without a TypeScript loader.
//
// Environment: SANDBOX_USER / SANDBOX_PASSWORD (default ada / lovelace), SANDBOX_CONSENT
// (approve | deny), SANDBOX_USER_CODE (a device user code to enter), BROWSER_DRIVER_LOG (append a
// log), SANDBOX_CHROMIUM (binary path), BROWSER_DRIVER_ENDPOINT (the WebSocket endpoint of a
// running Chromium server, see launchBrowserServer: each sign-in then gets a fresh context of it
// instead of a Chromium of its own; one that cannot be reached is passed over).

import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SANDBOX_CHROMIUM || '/usr/bin/chromium';

// Debian's Chromium, never a downloaded one. The flags keep it from phoning home (this
// machine has no internet, and such requests stall page loads).
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const OVERALL_TIMEOUT_MS = 60_000;

function withoutQuery(href) {
  try {
    const u = new URL(href);
    return `${u.origin}${u.pathname}`;
  } catch {
    return String(href).split('?')[0];
  }
}

async function bodyText(page) {
  try {
    return (await page.innerText('body', { timeout: 2000 })).trim();
  } catch {
    return '';
  }
}

/**
 * Opens `url` (an authorization request), signs in, answers the consent page and waits
 * until the browser has loaded the client's loopback callback page. Opened on a device
 * verification URI instead, it enters `userCode` where asked (SANDBOX_USER_CODE from the
 * command line), confirms the device and ends on the server's own page.
 *
 * @param {string} url
 * @param {{ user?: string, password?: string, consent?: 'approve'|'deny', userCode?: string,
 *           timeoutMs?: number, log?: (line: string) => void, endpoint?: string }} [options]
 * @returns {Promise<{ finalUrl: string, finalText: string }>}
 */
export async function driveLogin(url, options = {}) {
  const { user = 'ada', password = 'lovelace', consent = 'approve', userCode, timeoutMs = OVERALL_TIMEOUT_MS, log = () => {} } = options;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());

  // The authorization server's origin; every other 127.0.0.1 origin is the client's.
  const sandboxOrigins = new Set([new URL(url).origin]);
  const profile = mkdtempSync(join(tmpdir(), 'school-browser-'));
  const endpoint = options.endpoint ?? process.env.BROWSER_DRIVER_ENDPOINT;
  let browser;
  let context;
  try {
    if (endpoint) {
      try {
        browser = await chromium.connect(endpoint, { timeout: Math.min(5000, remaining()) });
        context = await browser.newContext();
        log(`connected to the browser server`);
      } catch (err) {
        log(`cannot use the browser server (${err instanceof Error ? err.message.split('\n')[0] : String(err)}): launching`);
        await browser?.close().catch(() => {});
        browser = undefined;
      }
    }
    if (!context) {
      log(`launch ${CHROMIUM_PATH}`);
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: CHROMIUM_ARGS,
        timeout: remaining(),
      });
    }
    // Only loopback traffic on 127.0.0.1 is allowed out of the browser.
    await context.route('**/*', (route) => {
      const target = route.request().url();
      let host = '';
      try {
        host = new URL(target).hostname;
      } catch {
        /* aborted below */
      }
      if (host === '127.0.0.1') return route.continue();
      log(`blocked ${withoutQuery(target)}`);
      return route.abort('blockedbyclient');
    });
    const page = context.pages()[0] ?? (await context.newPage());

    log(`open ${withoutQuery(url)}`);
    await page.goto(url, { waitUntil: 'load', timeout: remaining() });

    const submit = async (selector, what) => {
      const before = page.url();
      log(`${what} on ${withoutQuery(before)}`);
      await Promise.all([page.waitForURL((u) => u.href !== before, { waitUntil: 'load', timeout: remaining() }), page.click(selector, { timeout: remaining() })]);
    };

    // A form that posts back to its own URL (the device pages) navigates without changing it.
    const post = async (selector, what) => {
      log(`${what} on ${withoutQuery(page.url())}`);
      await Promise.all([page.waitForEvent('load', { timeout: remaining() }), page.click(selector, { timeout: remaining() })]);
    };

    let signedIn = false;
    let answered = false;
    let codeEntered = false;
    let confirmed = false;
    for (;;) {
      if (Date.now() >= deadline) throw new Error('timed out');
      const current = new URL(page.url());
      const hasSignIn = (await page.locator('input[name="username"]').count()) > 0;
      const hasConsent = (await page.locator('#approve').count()) > 0;

      // The device authorization grant (RFC 8628): code input, confirmation, and its own end page.
      if ((await page.locator('#device-done').count()) > 0) break;
      if ((await page.locator('#device-user-code').count()) > 0) {
        sandboxOrigins.add(current.origin);
        if (codeEntered || !userCode) throw new Error(`the device code page ${codeEntered ? 'refused the code' : 'asks for a code and none was given'}: ${(await bodyText(page)).slice(0, 300)}`);
        await page.fill('#device-user-code', userCode, { timeout: remaining() });
        await post('#device-continue', 'enter the device code');
        codeEntered = true;
        continue;
      }
      if ((await page.locator('#device-confirm').count()) > 0) {
        sandboxOrigins.add(current.origin);
        if (confirmed) throw new Error('the device confirmation came back after it was answered');
        await post(consent === 'deny' ? '#device-abort' : '#device-confirm', consent === 'deny' ? 'abort the device sign-in' : 'confirm the device');
        confirmed = true;
        if (consent === 'deny') break;
        continue;
      }

      if (hasSignIn) {
        sandboxOrigins.add(current.origin);
        if (signedIn) throw new Error(`sign-in as ${user} failed: ${(await bodyText(page)).slice(0, 300)}`);
        await page.fill('input[name="username"]', user, { timeout: remaining() });
        await page.fill('input[name="password"]', password, { timeout: remaining() });
        await submit('#sign-in', `sign in as ${user}`);
        signedIn = true;
        continue;
      }
      if (hasConsent) {
        sandboxOrigins.add(current.origin);
        if (answered) throw new Error('the consent page came back after it was answered');
        await submit(consent === 'deny' ? '#deny' : '#approve', consent === 'deny' ? 'deny consent' : 'approve consent');
        answered = true;
        continue;
      }
      if (current.protocol === 'http:' && current.hostname === '127.0.0.1' && !sandboxOrigins.has(current.origin)) {
        break; // the client's loopback callback
      }
      const text = await bodyText(page);
      throw new Error(`stopped on ${withoutQuery(page.url())}, which is neither a sign-in, consent nor callback page: ${text.slice(0, 500)}`);
    }

    await page.waitForLoadState('load', { timeout: remaining() });
    const finalUrl = page.url();
    const finalText = await bodyText(page);
    log(`landed on ${withoutQuery(finalUrl)}`);
    log(`page text: ${finalText.slice(0, 1000).replace(/\s+/g, ' ')}`);
    return { finalUrl, finalText };
  } finally {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * One headless Chromium for many sign-ins: its WebSocket endpoint, given to driveLogin (or as
 * BROWSER_DRIVER_ENDPOINT), spares each sign-in the start of a browser of its own.
 *
 * @returns {Promise<{ endpoint: string, close: () => Promise<void> }>}
 */
export async function launchBrowserServer() {
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  return { endpoint: server.wsEndpoint(), close: () => server.close() };
}

async function main() {
  const logFile = process.env.BROWSER_DRIVER_LOG;
  const log = (line) => {
    if (!logFile) return;
    try {
      appendFileSync(logFile, `${new Date().toISOString()} browser-driver: ${line}\n`);
    } catch {
      /* logging must never fail the run */
    }
  };
  const url = process.argv[process.argv.length - 1];
  if (process.argv.length < 3 || !/^https?:\/\//.test(url)) {
    log(`usage error, argv: ${process.argv.slice(2).join(' ')}`);
    console.error('usage: browser-driver.mjs <authorization-url>');
    process.exit(64);
  }
  const timer = setTimeout(() => {
    log(`giving up after ${OVERALL_TIMEOUT_MS / 1000} s`);
    process.exit(3);
  }, OVERALL_TIMEOUT_MS + 2000);
  timer.unref();

  const consent = process.env.SANDBOX_CONSENT === 'deny' ? 'deny' : 'approve';
  try {
    await driveLogin(url, {
      user: process.env.SANDBOX_USER || 'ada',
      password: process.env.SANDBOX_PASSWORD || 'lovelace',
      consent,
      userCode: process.env.SANDBOX_USER_CODE || undefined,
      log,
    });
    log('done');
    process.exit(0);
  } catch (err) {
    log(`error: ${err instanceof Error ? err.message : String(err)}`);
    console.error(`browser-driver: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
