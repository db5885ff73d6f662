// The loopback listener receives whatever a browser, or any local process, sends to its port:
// the callback query goes through the listener and the protocol checks without a crash, and only
// the exact callback path counts.
import { request } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callbackUrl, carriesState, startLoopback } from '../../src/login/loopback.js';
import { validateCallback } from '../../src/oauth/authorize.js';
import { describeError } from '../../src/errors.js';
import { isPrintable, printable } from '../../src/util/printable.js';
import { settled } from '../helpers/outcome.js';

const PATH = '/callback';
const nasty = fc.constantFrom('%', '%zz', '%00', '%1b[2J', '#', '?', '&', '=', '/..', '\\', '\u001b', '\u202e', '\ud800', ' ', '+', 'state=', 'code=', 'iss=', 'error=', 'error_description=');
const query = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 10 }), nasty, fc.stringMatching(/^[a-z_]{1,8}=[a-zA-Z0-9%]{0,12}$/)), { maxLength: 8 }).map((p) => p.join(''));
const path = fc.oneof(fc.constant(PATH), fc.constantFrom('/callback/', '/Callback', '//callback', '/x/../callback', '/callback%2f', ''), fc.string({ maxLength: 12 }));

/** Bytes a client can put on a request line: visible ASCII as it is, every other byte percent-encoded. */
const onTheWire = (s: string) => [...Buffer.from(s, 'utf8')].map((b) => (b > 0x20 && b < 0x7f && b !== 0x23 ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0')}`)).join('');

const as = { issuer: 'https://as.example' };
const client = { clientId: 'cid', authMethod: 'none' as const };

describe('loopback callback handling', () => {
  it('takes exactly the callback path and keeps any query for the checks, never throwing', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, fc.constantFrom('GET', 'POST', 'HEAD', undefined), async (p, q, method) => {
        const raw = `${p}?${q}`;
        const url = callbackUrl(51234, method, raw, PATH);
        if (method !== 'GET' || raw.split('?')[0] !== PATH) {
          expect(url).toBeUndefined();
          return;
        }
        if (!url) return;
        expect(url.pathname).toBe(PATH);
        expect(url.origin).toBe('http://127.0.0.1:51234');
        // The protocol checks refuse or accept; what they say, once shown, is one clean line.
        const checked = await settled(() => validateCallback(as, client, url, 'expected-state'));
        if (checked.ok) {
          expect(checked.value.get('state')).toBe('expected-state');
        } else {
          const report = describeError(checked.error);
          expect(typeof report.message).toBe('string');
          expect(isPrintable(printable(report.message))).toBe(true);
        }
      }),
      { numRuns: 6000 },
    );
  });

  it('a live listener answers random requests without crashing and takes only its exact path', async () => {
    const listener = await startLoopback({ port: 0, path: PATH, timeoutMs: 60_000 });
    const send = (rawPath: string) =>
      new Promise<number>((resolve) => {
        const req = request({ host: '127.0.0.1', port: listener.port, path: rawPath, method: 'GET', insecureHTTPParser: true }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', () => resolve(-1)); // refused by Node's own request checks: nothing sent
        req.end();
      });
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('/favicon.ico', '/callback/x', '/x/../callback', '//callback', '/callbacks'), query, async (p, q) => {
          const status = await send(`${p}?${onTheWire(q).slice(0, 300)}`);
          expect([404, 400, -1]).toContain(status);
        }),
        { numRuns: 300 },
      );
      const status = send(`${PATH}?code=abc&state=${encodeURIComponent('\u001b]52;c;x\u0007')}`);
      const url = await listener.callback;
      expect(url.searchParams.get('state')).toBe('\u001b]52;c;x\u0007');
      await listener.finish({ ok: false, title: 'Refused', message: 'x' });
      expect(await status).toBe(400);
    } finally {
      await listener.close();
    }
  });
});

describe("callbacks that are not the login's own", () => {
  const STATE = 'the-login-state-0123456789';
  const sendGet = (port: number, rawPath: string) =>
    new Promise<{ status: number; body: string }>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: rawPath, method: 'GET', insecureHTTPParser: true }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', () => resolve({ status: -1, body: '' }));
      req.end();
    });

  it('carriesState: the one state, exactly, and nothing while no login is known', () => {
    const at = (q: string) => new URL(`http://127.0.0.1:1/callback?${q}`);
    expect(carriesState(at(`code=c&state=${STATE}`), STATE)).toBe(true);
    expect(carriesState(at(`code=c&state=${STATE}x`), STATE)).toBe(false);
    expect(carriesState(at('code=c'), STATE)).toBe(false);
    expect(carriesState(at(`state=${STATE}&state=other`), STATE)).toBe(false);
    expect(carriesState(at(`state=${STATE}`), undefined)).toBe(false);
  });

  it('answers any number of forged callbacks with a plain 400 page, keeps waiting, then takes the real one once', async () => {
    const listener = await startLoopback({ port: 0, path: PATH, timeoutMs: 60_000, isOwnCallback: (url) => carriesState(url, STATE) });
    let resolved = false;
    void listener.callback.then(() => (resolved = true));
    try {
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const forged = `${PATH}?${onTheWire(q).slice(0, 300)}`;
          if (new URL(`http://x${forged}`).searchParams.get('state') === STATE) return;
          const answer = await sendGet(listener.port, forged);
          if (answer.status === -1) return; // refused by Node's own request checks: nothing sent
          expect(answer.status).toBe(400);
          expect(answer.body).toMatch(/^This sign-in response is not the one this login is waiting for/);
          expect(answer.body).not.toMatch(/</);
          expect(resolved).toBe(false);
        }),
        { numRuns: 200 },
      );
      expect((await sendGet(listener.port, `${PATH}?code=stolen&state=wrong`)).status).toBe(400);
      const real = sendGet(listener.port, `${PATH}?code=real&state=${STATE}`);
      const url = await listener.callback;
      expect(url.searchParams.get('code')).toBe('real');
      // A second callback, even with the right state, finds the login taken.
      expect((await sendGet(listener.port, `${PATH}?code=again&state=${STATE}`)).status).toBe(409);
      await listener.finish({ ok: true, title: 'Logged in', message: 'x' });
      expect((await real).status).toBe(200);
    } finally {
      await listener.close();
    }
  });

  it('a forged callback does not end the wait before the timeout, which still comes', async () => {
    const listener = await startLoopback({ port: 0, path: PATH, timeoutMs: 400, isOwnCallback: async (url) => carriesState(url, STATE) });
    try {
      expect((await sendGet(listener.port, `${PATH}?error=access_denied&state=forged`)).status).toBe(400);
      await expect(listener.callback).rejects.toMatchObject({ code: 'timeout' });
    } finally {
      await listener.close();
    }
  });
});
