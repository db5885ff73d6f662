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
// instead of a Chromium of its own; one that cannot be reached is passed over),
// BROWSER_DRIVER_SERVICE (the address of the sign-in service launchBrowserServer also starts: the
// command then hands the sign-in to it and waits for the outcome, so it never loads Playwright,
// which is most of a short sign-in's cost; a service that cannot be reached is passed over).

import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';

/** playwright-core, loaded on first use: a command that hands its sign-in to the service never loads it. */
let playwright;
const chromiumApi = async () => (playwright ??= await import('playwright-core')).chromium;

export const CHROMIUM_PATH = process.env.SANDBOX_CHROMIUM || '/usr/bin/chromium';

// Debian's Chromium, never a downloaded one. The flags keep it from phoning home (this
// machine has no internet, and such requests stall page loads).
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const OVERALL_TIMEOUT_MS = 60_000;
/** A sign-in request names a URL, a user and a log file: far less than this. */
const MAX_SERVICE_REQUEST_BYTES = 65_536;

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
 *           timeoutMs?: number, log?: (line: string) => void, endpoint?: string,
 *           page?: import('playwright-core').Page }} [options]
 *   `page`: a clean page the caller keeps (the sign-in service's), whose context already lets
 *   only loopback traffic out (onlyLoopback); it is left open.
 * @returns {Promise<{ finalUrl: string, finalText: string }>}
 */
export async function driveLogin(url, options = {}) {
  const { user = 'ada', password = 'lovelace', consent = 'approve', userCode, timeoutMs = OVERALL_TIMEOUT_MS, log = () => {} } = options;
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());

  // The authorization server's origin; every other 127.0.0.1 origin is the client's.
  const sandboxOrigins = new Set([new URL(url).origin]);
  const own = options.page ? undefined : await ownPage(options.endpoint ?? process.env.BROWSER_DRIVER_ENDPOINT, remaining, log);
  const page = options.page ?? own.page;
  try {
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
    await own?.close();
  }
}

/**
 * A page in a browser of the driver's own: a fresh context of the shared Chromium at `endpoint`
 * when it can be reached, else a Chromium launched here; only loopback traffic leaves it.
 * `close()` ends it, browser and profile included.
 */
async function ownPage(endpoint, remaining, log) {
  const chromium = await chromiumApi();
  let browser;
  let context;
  let profile;
  const close = async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (profile) rmSync(profile, { recursive: true, force: true });
  };
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
      profile = mkdtempSync(join(tmpdir(), 'school-browser-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: CHROMIUM_ARGS,
        timeout: remaining(),
      });
    }
    await onlyLoopback(context, log);
    return { page: context.pages()[0] ?? (await context.newPage()), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Lets only loopback traffic on 127.0.0.1 out of the browser's context; the rest is aborted, and logged. */
function onlyLoopback(context, log) {
  return context.route('**/*', (route) => {
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
}

/**
 * One headless Chromium for many sign-ins: its WebSocket endpoint, given to driveLogin (or as
 * BROWSER_DRIVER_ENDPOINT), spares each sign-in the start of a browser of its own. Beside it, a
 * sign-in service on loopback (`service`, given as BROWSER_DRIVER_SERVICE): the driver command
 * posts its URL and options there, the service signs in with a browser it connected once, and the
 * command exits as it would have. Each sign-in still gets a fresh context.
 *
 * @returns {Promise<{ endpoint: string, service: string, close: () => Promise<void> }>}
 */
export async function launchBrowserServer() {
  const chromium = await chromiumApi();
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const endpoint = server.wsEndpoint();
  const browser = await chromium.connect(endpoint);
  // Pages kept between sign-ins, each in a context of its own: a new page starts a renderer, which
  // costs more CPU than the sign-in's pages. A page given back is emptied (cookies, then a blank
  // page), so each sign-in still starts signed out; one that failed is closed instead.
  const idle = [];
  const takePage = async () => {
    const kept = idle.pop();
    if (kept) return kept;
    const context = await browser.newContext();
    const slot = { context, page: undefined, log: () => {} };
    await onlyLoopback(context, (line) => slot.log(line));
    slot.page = await context.newPage();
    return slot;
  };
  const giveBack = async (slot, clean) => {
    slot.log = () => {};
    try {
      if (!clean || idle.length >= 4) throw new Error('not kept');
      await slot.context.clearCookies();
      await slot.page.goto('about:blank');
      idle.push(slot);
    } catch {
      await slot.context.close().catch(() => {});
    }
  };
  const service = createServer((req, res) => {
    const answer = (status, body) => {
      if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/sign-in') return answer(404, { ok: false, error: 'not found' });
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_SERVICE_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', async () => {
      if (size > MAX_SERVICE_REQUEST_BYTES) return answer(413, { ok: false, error: 'request too large' });
      let asked;
      try {
        asked = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (typeof asked?.url !== 'string' || !/^https?:\/\//.test(asked.url)) throw new Error('no authorization URL');
      } catch (err) {
        return answer(400, { ok: false, error: err instanceof Error ? err.message : String(err) });
      }
      const log = fileLog(typeof asked.log === 'string' ? asked.log : undefined);
      log('signing in through the sign-in service');
      let slot;
      // A caller that goes away (its driver killed, its test over) ends its sign-in: the page's
      // context is closed, so the drive fails at once instead of running out its timeout.
      res.on('close', () => {
        if (!res.writableFinished) slot?.context.close().catch(() => {});
      });
      try {
        if (!browser.isConnected()) throw Object.assign(new Error('the browser is gone'), { unavailable: true });
        slot = await takePage().catch((err) => {
          throw Object.assign(err, { unavailable: true });
        });
        slot.log = log;
        await driveLogin(asked.url, {
          user: asked.user || 'ada',
          password: asked.password || 'lovelace',
          consent: asked.consent === 'deny' ? 'deny' : 'approve',
          userCode: asked.userCode || undefined,
          page: slot.page,
          log,
        });
        await giveBack(slot, true);
        answer(200, { ok: true });
      } catch (err) {
        if (slot) await giveBack(slot, false);
        const error = err instanceof Error ? err.message : String(err);
        log(`error: ${error}`);
        // Without a browser the service cannot sign anyone in: 503 sends the driver to a browser of its own.
        if (err?.unavailable || !browser.isConnected()) answer(503, { ok: false, error });
        else answer(200, { ok: false, error });
      }
    });
  });
  await new Promise((resolve, reject) => service.once('error', reject).listen(0, '127.0.0.1', () => resolve(undefined)));
  return {
    endpoint,
    service: `http://127.0.0.1:${service.address().port}`,
    close: async () => {
      service.closeAllConnections();
      for (const slot of idle.splice(0)) await slot.context.close().catch(() => {});
      await new Promise((resolve) => service.close(() => resolve(undefined)));
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}

/** Appends a line to the log file named (BROWSER_DRIVER_LOG), if any; logging never fails a sign-in. */
function fileLog(logFile) {
  return (line) => {
    if (!logFile) return;
    try {
      appendFileSync(logFile, `${new Date().toISOString()} browser-driver: ${line}\n`);
    } catch {
      /* logging must never fail the run */
    }
  };
}

/**
 * Hands a sign-in to the service at `address` and waits for its outcome: `{ ok, error? }`, or
 * undefined when the service cannot be reached or cannot sign in (any answer but 200): the caller
 * then signs in itself.
 */
function askService(address, asked) {
  return new Promise((resolve) => {
    const body = JSON.stringify(asked);
    const req = request(`${address}/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        try {
          const answer = JSON.parse(text);
          resolve(res.statusCode === 200 && typeof answer?.ok === 'boolean' ? answer : undefined);
        } catch {
          resolve(undefined);
        }
      });
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}

async function main() {
  const logFile = process.env.BROWSER_DRIVER_LOG;
  const log = fileLog(logFile);
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
  const service = process.env.BROWSER_DRIVER_SERVICE;
  if (service) {
    // The service runs elsewhere: a relative log path is made absolute here, where it was meant.
    const asked = { url, user: process.env.SANDBOX_USER, password: process.env.SANDBOX_PASSWORD, consent, userCode: process.env.SANDBOX_USER_CODE, log: logFile && resolvePath(logFile) };
    const answer = await askService(service, asked);
    if (answer?.ok) {
      log('done');
      process.exit(0);
    }
    if (answer) {
      console.error(`browser-driver: ${answer.error}`);
      process.exit(1);
    }
    log(`cannot reach the sign-in service at ${service}: signing in here`);
  }
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
