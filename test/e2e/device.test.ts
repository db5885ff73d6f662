// The device authorization grant (RFC 8628) against sandbox variants: `login --device` shows the
// codes, a real browser (on "another device") enters or follows them, and the CLI polls until
// approved; a server without the grant and hostile intervals are refused.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox, SandboxVariant } from '@school/sandbox';
import { driveLogin } from '@school/sandbox/browser-driver';
import { type Env, expectSessionAfterLogin, eventsOf, pollUntil, runSchool, startSchool, userEnv, withVariants, processAlive } from './harness.js';

const devicePolls = (sb: Sandbox) => eventsOf(sb, 'token').filter((e) => e.grant_type === 'urn:ietf:params:oauth:grant-type:device_code');
const VERIFICATION_LINE = /^(http:\/\/127\.0\.0\.1:\d+\/device)$/m;
const COMPLETE_LINE = /^(http:\/\/127\.0\.0\.1:\d+\/device\?user_code=\S+)$/m;
const CODE_LINE = /^and enter the code:\n(\S+)$/m;
/** A server naming a 1 s interval: the journeys below need not wait the default 5 s a poll. */
const SHORT_INTERVAL: SandboxVariant[] = ['device-authorization', 'device-interval-short'];

/** The process a `login --device --no-wait` left polling, as its pending login names it. */
function pendingPoller(env: { SCHOOL_CONFIG_DIR: string }): number {
  const record = JSON.parse(readFileSync(join(env.SCHOOL_CONFIG_DIR, 'state', 'pending', 'default.json'), 'utf8')) as { listenerPid: number };
  return record.listenerPid;
}

function login(sb: Sandbox, env: Env, extra: string[] = []) {
  return startSchool(['login', '--device', '--base-url', sb.baseUrl, ...extra], env);
}

describe('login --device (RFC 8628)', () => {
  it('shows the codes on plain lines, polls at the interval until approved on another device; token, refresh, call, whoami and logout work', async () => {
    await withVariants(['device-authorization'], async (sb) => {
      const env = userEnv({ BROWSER: '/bin/false' }); // nothing is opened on this machine
      const run = login(sb, env);
      const [, complete] = await run.waitForStderr(COMPLETE_LINE);
      const stderr = run.stderr();
      expect(stderr).toMatch(VERIFICATION_LINE);
      const code = CODE_LINE.exec(stderr)![1]!;
      expect(complete).toContain(`user_code=${code}`);
      expect(stderr).toContain('never enter a code that someone else sent you');
      await driveLogin(complete!);
      const res = await run.done;
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toMatch(/Logged in as Ada Lovelace/);
      expect(res.stdout).toBe('');
      // Polled no faster than the server's interval (5 s here).
      const polls = devicePolls(sb);
      expect(polls.at(-1)).toMatchObject({ ok: true });
      for (let i = 1; i < polls.length; i++) expect(polls[i]!.at - polls[i - 1]!.at).toBeGreaterThanOrEqual(4900);
      // The client is registered for the device grant; the browser login then reuses it.
      expect(eventsOf(sb, 'register')[0]!.grant_types).toContain('urn:ietf:params:oauth:grant-type:device_code');

      await expectSessionAfterLogin(sb, env);
    });
  });

  it('takes the user code typed on the verification page, and --json says what was done', async () => {
    await withVariants(SHORT_INTERVAL, async (sb) => {
      const env = userEnv();
      const run = login(sb, env, ['--json', '--profile', 'remote']);
      const [, verification] = await run.waitForStderr(VERIFICATION_LINE);
      const code = CODE_LINE.exec(run.stderr())![1]!;
      await driveLogin(verification!, { userCode: code });
      const res = await run.done;
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ status: 'logged_in', profile: 'remote', user: expect.stringMatching(/^Ada Lovelace/) });
    });
  });

  it('--no-wait returns at once with the codes (--json too), a background poller finishes, --wait reports it', async () => {
    await withVariants(SHORT_INTERVAL, async (sb) => {
      const env = userEnv();
      const started = await login(sb, env, ['--no-wait', '--json']).done;
      expect(started.code, started.stderr).toBe(0);
      const codes = JSON.parse(started.stdout) as Record<string, string>;
      expect(codes).toMatchObject({ profile: 'default', verification_uri: expect.stringMatching(VERIFICATION_LINE), user_code: expect.any(String) });
      expect(codes.url).toBe(codes.verification_uri_complete);
      expect(started.stderr).toContain(`\n${codes.user_code}\n`);
      expect(started.stderr).toContain('school login --wait');
      const pending = await runSchool(['login', '--wait', '--timeout', '1'], env);
      expect(pending.code).toBe(4);
      await driveLogin(codes.url!);
      const waited = await runSchool(['login', '--wait', '--json'], env);
      expect(waited.code, waited.stderr).toBe(0);
      expect(JSON.parse(waited.stdout)).toMatchObject({ status: 'logged_in', profile: 'default' });
      expect((await runSchool(['whoami'], env)).code).toBe(0);
    });
  });

  it('--no-wait cancelled by `school logout` and approved afterwards stores nothing, and its poller stops', async () => {
    await withVariants(SHORT_INTERVAL, async (sb) => {
      const env = userEnv();
      const started = await login(sb, env, ['--no-wait', '--json']).done;
      expect(started.code, started.stderr).toBe(0);
      const codes = JSON.parse(started.stdout) as Record<string, string>;
      const poller = pendingPoller(env);
      expect(processAlive(poller)).toBe(true);
      const logout = await runSchool(['logout'], env);
      expect(logout.code, logout.stderr).toBe(0);
      expect(logout.stderr).toContain('Cancelled the pending login.');
      // The poller is gone (waited for, up to a deadline): nothing can poll for the cancelled login.
      await pollUntil(() => !processAlive(poller), 10_000, 'the poller to stop after the logout');
      // The person approves the code only after the logout: no poll ever gets the tokens.
      await driveLogin(codes.url!);
      expect(devicePolls(sb).filter((e) => e.ok === true)).toEqual([]);
      const who = await runSchool(['whoami'], env);
      expect(who.code).toBe(4);
      const waited = await runSchool(['login', '--wait'], env);
      expect(waited.code).toBe(4);
      expect(waited.stderr).toMatch(/No login is pending/);
      // Nothing polls once the login is gone: no process of its is left to.
      expect(processAlive(poller)).toBe(false);
      expect(devicePolls(sb).filter((e) => e.ok === true)).toEqual([]);
    });
  });

  it('gives up at --timeout when nobody approves', async () => {
    await withVariants(SHORT_INTERVAL, async (sb) => {
      const started = Date.now();
      const res = await login(sb, userEnv(), ['--timeout', '3']).done;
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/The device code was not approved in time/);
      expect(devicePolls(sb).length).toBeGreaterThanOrEqual(2);
      expect(Date.now() - started).toBeLessThan(8_000);
    });
  });

  it('exits 2 naming the missing endpoint where the server offers no device authorization', async () => {
    await withVariants([], async (sb) => {
      const res = await login(sb, userEnv()).done;
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/offers no device authorization \(its metadata has no device_authorization_endpoint\)/);
      expect(eventsOf(sb, 'register')).toEqual([]);
    });
  });

  it.each([
    ['device-interval-zero', /interval.*must be a positive number/],
    ['device-interval-huge', /asks to wait 1000000000 s between polls, but its code is valid for \d+ s only; refusing it/],
  ] as const)('hostile: %s is refused at once, and nothing is polled', async (variant, message) => {
    await withVariants([variant], async (sb) => {
      const started = Date.now();
      const res = await login(sb, userEnv()).done;
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(message);
      expect(devicePolls(sb)).toEqual([]);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });
});
