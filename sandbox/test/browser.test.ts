// The real thing: Debian's Chromium walks the sign-in and consent pages.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BROWSER_DRIVER_SCRIPT, driveLogin, launchBrowserServer } from '../src/browser-driver.js';
import { startSandbox, type Sandbox } from '../src/index.js';
import { authorizationUrl, callbackListener, discover, eventsOf, insecure, register, type CallbackListener, type RegisteredClient } from './testkit.js';

let sb: Sandbox;
let as: oauth.AuthorizationServer;
let reg: RegisteredClient;
let listener: CallbackListener;
let scratch: string;

beforeAll(async () => {
  sb = await startSandbox({ quiet: true, splitOrigins: true });
  as = await discover(sb.issuer);
  // Registered on one port, used on another: loopback redirects match on any port.
  reg = await register(as, { redirect_uris: ['http://127.0.0.1:9/callback'] });
  listener = await callbackListener('/callback');
  scratch = mkdtempSync(join(tmpdir(), 'sandbox-browser-test-'));
});
afterAll(async () => {
  await listener?.close();
  await sb?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('authorization code flow in a real browser', () => {
  it('signs in, consents, delivers code + state + iss to the loopback listener, and the code works', async () => {
    const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid profile email courses:read');
    const [result, callback] = await Promise.all([driveLogin(req.url.href), listener.next()]);
    expect(result.finalUrl.startsWith(listener.redirectUri)).toBe(true);
    expect(result.finalText).toContain('Authorization received');

    expect(callback.searchParams.get('state')).toBe(req.state);
    expect(callback.searchParams.get('iss')).toBe(sb.issuer);
    expect(callback.searchParams.get('code')).toBeTruthy();

    const params = oauth.validateAuthResponse(as, reg.client, callback, req.state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      reg.client,
      await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, listener.redirectUri, req.verifier, insecure),
    );
    expect(tokens.refresh_token).toBeTruthy();
    const claims = await oauth.processUserInfoResponse(as, reg.client, oauth.skipSubjectCheck, await oauth.userInfoRequest(as, reg.client, tokens.access_token, insecure));
    expect(claims).toMatchObject({ sub: 'usr_1815_ada', name: 'Ada Lovelace', email: 'ada@example.edu' });

    const api = await fetch(`${sb.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(api.status).toBe(200);

    expect(eventsOf(sb, 'authorize').at(-1)).toMatchObject({ client_id: reg.client.client_id, scope: 'openid profile email courses:read' });
    expect(eventsOf(sb, 'consent').at(-1)).toMatchObject({ client_id: reg.client.client_id, decision: 'approve' });
    const code = callback.searchParams.get('code')!;
    expect(JSON.stringify(sb.events)).not.toContain(code);
  });

  it('delivers access_denied with iss when the user denies', async () => {
    const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid courses:write');
    const [, callback] = await Promise.all([driveLogin(req.url.href, { user: 'alan', password: 'turing', consent: 'deny' }), listener.next()]);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('iss')).toBe(sb.issuer);
    expect(callback.searchParams.get('state')).toBe(req.state);
    expect(eventsOf(sb, 'consent').at(-1)).toMatchObject({ decision: 'deny' });
  });

  it('fails clearly on a wrong password', async () => {
    const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid');
    await expect(driveLogin(req.url.href, { password: 'wrong' })).rejects.toThrow(/sign-in as ada failed/);
  });

  it('runs under plain node as a BROWSER command, logging its steps', async () => {
    const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid students:read');
    const log = join(scratch, 'driver.log');
    const run = new Promise<number>((resolve) => {
      execFile(
        process.execPath,
        [BROWSER_DRIVER_SCRIPT, req.url.href],
        {
          env: { ...process.env, BROWSER_DRIVER_LOG: log, SANDBOX_USER: 'alan', SANDBOX_PASSWORD: 'turing' },
        },
        (err) => resolve(err ? Number((err as { code?: number }).code ?? 1) : 0),
      );
    });
    const [exitCode, callback] = await Promise.all([run, listener.next()]);
    expect(exitCode).toBe(0);
    expect(callback.searchParams.get('code')).toBeTruthy();
    const text = readFileSync(log, 'utf8');
    expect(text).toContain('sign in as alan');
    expect(text).toContain(`landed on ${listener.redirectUri}`);
    expect(text).not.toContain(callback.searchParams.get('code')!);
  });

  it('just waits for the callback when the server redirects there straight away with an error', async () => {
    const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid no:such-scope');
    const [result, callback] = await Promise.all([driveLogin(req.url.href), listener.next()]);
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
    expect(result.finalUrl.startsWith(listener.redirectUri)).toBe(true);
  });
});

describe('the sign-in service beside a shared Chromium', () => {
  /** The driver as the CLI runs it, with the service's address; its exit code. */
  const runDriver = (url: string, env: Record<string, string>) =>
    new Promise<number>((resolve) => {
      execFile(process.execPath, [BROWSER_DRIVER_SCRIPT, url], { env: { ...process.env, ...env } }, (err) => resolve(err ? Number((err as { code?: number }).code ?? 1) : 0));
    });

  it('signs in for the driver command, again on a kept page signed out, fails as the driver would, and is passed over when gone', async () => {
    const server = await launchBrowserServer();
    const log = join(scratch, 'service.log');
    try {
      for (const user of ['alan', 'ada']) {
        const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid');
        const [exitCode, callback] = await Promise.all([
          runDriver(req.url.href, { BROWSER_DRIVER_SERVICE: server.service, BROWSER_DRIVER_LOG: log, SANDBOX_USER: user, SANDBOX_PASSWORD: user === 'alan' ? 'turing' : 'lovelace' }),
          listener.next(),
        ]);
        expect(exitCode).toBe(0);
        expect(callback.searchParams.get('code')).toBeTruthy();
        // The second sign-in is asked for a password again: the kept page kept no session.
        expect(readFileSync(log, 'utf8')).toContain(`sign in as ${user}`);
      }
      expect(readFileSync(log, 'utf8').match(/signing in through the sign-in service/g)).toHaveLength(2);

      const wrong = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid');
      expect(await runDriver(wrong.url.href, { BROWSER_DRIVER_SERVICE: server.service, BROWSER_DRIVER_LOG: log, SANDBOX_PASSWORD: 'wrong' })).toBe(1);
      expect(readFileSync(log, 'utf8')).toMatch(/error: sign-in as ada failed/);

      const tooLarge = await fetch(`${server.service}/sign-in`, { method: 'POST', body: JSON.stringify({ url: `http://127.0.0.1/${'x'.repeat(70_000)}` }) });
      expect(tooLarge.status).toBe(413);
    } finally {
      await server.close();
    }
    // The service is gone: the driver signs in with a browser of its own.
    const req = await authorizationUrl(as, reg.client, listener.redirectUri, 'openid');
    const [exitCode, callback] = await Promise.all([runDriver(req.url.href, { BROWSER_DRIVER_SERVICE: server.service, BROWSER_DRIVER_LOG: log }), listener.next()]);
    expect(exitCode).toBe(0);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(readFileSync(log, 'utf8')).toContain(`cannot reach the sign-in service at ${server.service}: signing in here`);
  });
});
