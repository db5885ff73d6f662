import type { Deps } from '../deps.js';
import { type Spinner, startSpinner } from '../ui/spinner.js';
import type { LoopbackListener } from './loopback.js';
import { requireCommonJs } from '../util/require.js';

/** Reads a redirect URL pasted on a terminal, for a browser that runs on another machine. */
async function readPastedRedirect(deps: Pick<Deps, 'io'>, redirectUri: string): Promise<{ result: Promise<URL>; stop(): void }> {
  const { createInterface }: typeof import('node:readline') = requireCommonJs('node:readline');
  const rl = createInterface({ input: deps.io.in, terminal: false });
  const expected = new URL(redirectUri);
  const result = new Promise<URL>((resolve) => {
    rl.on('line', (line) => {
      const text = line.trim();
      if (!text) return;
      try {
        const url = new URL(text);
        if (url.origin === expected.origin && url.pathname === expected.pathname) {
          resolve(url);
          return;
        }
      } catch {
        // not a URL
      }
      deps.io.err.write(`That is not the address the sign-in redirected to (it starts with ${redirectUri}?). Paste it again.\n`);
    });
  });
  return { result, stop: () => rl.close() };
}

/**
 * Shows the authorization URL (opening the browser unless told not to) and waits for the redirect:
 * on the loopback listener, or pasted back on a terminal when the browser runs elsewhere.
 */
export async function waitForRedirect(deps: Pick<Deps, 'io' | 'browser'>, p: { listener: LoopbackListener; authorizationUrl: string; openBrowser: boolean; timeoutSeconds: number }): Promise<URL> {
  const { io } = deps;
  const { listener, authorizationUrl } = p;
  // Pasting back is offered on a terminal whenever the browser may run on another machine: with
  // --no-browser, and when no browser could be opened here (over SSH, without a display).
  let canPaste = !p.openBrowser && io.inIsTTY;
  let spinner: Spinner | undefined;
  let over = false;
  if (p.openBrowser) {
    const opened = await deps.browser.open(authorizationUrl);
    if (opened.opened) io.err.write(`Opening the browser to sign in. If it does not open, visit:\n${authorizationUrl}\n`);
    else io.err.write(`Could not open a browser (${opened.reason}). Open this URL to sign in:\n${authorizationUrl}\n`);
    canPaste = !opened.opened && io.inIsTTY;
    // A browser command that fails at once opened nothing: the person is told, and the wait goes on.
    void opened.failure?.then((failure) => {
      if (!failure || over) return;
      const line = `The browser command failed: ${failure}. Open the URL above to sign in; still waiting.\n`;
      if (spinner) spinner.note(line);
      else io.err.write(line);
    });
  } else {
    io.err.write(`Open this URL in a browser to sign in:\n${authorizationUrl}\n`);
  }
  if (canPaste) io.err.write(`The browser will be sent to ${listener.redirectUri}; if that page does not load (browser on another machine), paste its full address here.\n`);
  const waiting = `Waiting for the sign-in to finish (${p.timeoutSeconds} s; Ctrl-C to cancel)…`;
  // A spinner redraws its line and would wipe out what the user pastes: no spinner then.
  if (canPaste) io.err.write(`${waiting}\n`);
  spinner = canPaste ? { stop() {}, note: (line: string) => io.err.write(line) } : await startSpinner(io, waiting);
  const paste = canPaste ? await readPastedRedirect(deps, listener.redirectUri) : undefined;
  try {
    return await (paste ? Promise.race([listener.callback, paste.result]) : listener.callback);
  } finally {
    over = true;
    spinner.stop();
    paste?.stop();
  }
}
