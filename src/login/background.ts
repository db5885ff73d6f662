import type { Readable } from 'node:stream';
import { type Deps, nowSeconds } from '../deps.js';
import { isErrorCode } from '../error-codes.js';
import { CliError, InterruptedError } from '../errors.js';
import { profileLockName } from '../session/refresh.js';
import type { LoginOutcome } from '../state/pending-login.js';
import { requireCommonJs } from '../util/require.js';
import { LISTENER_IDENTITY_PATH } from './loopback.js';
import { loginCommandText } from '../util/login-command.js';

/**
 * `login --no-wait`: the redirect is received by a detached process of our own (the hidden command
 * `__complete-login`, in `background-listener.ts`) that outlives the command which started it. It
 * binds the loopback listener, tells its parent the port over a pipe on fd 3, then finishes the
 * login when the browser comes back, or gives up at the timeout; either way it leaves a small
 * outcome record for `login --wait`. This file is the outside of it: starting, stopping, waiting.
 */

/** The hidden command the background listener runs. */
export const BACKGROUND_COMMAND = '__complete-login';
/** The file descriptor on which the background listener reports to its parent. */
export const REPORT_FD = 3;
const HANDSHAKE_TIMEOUT_MS = 15_000;
/** A listener still alive this long after its deadline is stuck, not waiting. */
const DEADLINE_GRACE_SECONDS = 10;

/** The few process operations the pending-login policy needs, so tests can hand in fakes. */
export interface Processes {
  alive(pid: number): boolean;
  /**
   * Whether `pid` is our listener on `redirectUri`'s port, asked over that port: a process number
   * outlives its process, and may belong to another one by the time a listener is to be stopped.
   */
  isListener(pid: number, redirectUri: string): Promise<boolean>;
  /** Ends a process and waits until it is gone. */
  stop(pid: number): Promise<void>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new InterruptedError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new InterruptedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export const systemProcesses: Processes = {
  alive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      // EPERM: it exists but is not ours to signal.
      return err instanceof Error && 'code' in err && err.code === 'EPERM';
    }
  },
  isListener(pid, redirectUri) {
    const { request }: typeof import('node:http') = requireCommonJs('node:http');
    return new Promise((resolve) => {
      let port: number;
      try {
        port = Number(new URL(redirectUri).port);
      } catch {
        return resolve(false);
      }
      const req = request({ host: '127.0.0.1', port, path: LISTENER_IDENTITY_PATH, timeout: 1_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body = (body + chunk).slice(0, 200)));
        res.on('end', () => {
          try {
            resolve(res.statusCode === 200 && (JSON.parse(body) as { pid?: unknown }).pid === pid);
          } catch {
            resolve(false);
          }
        });
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end();
    });
  },
  async stop(pid) {
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(pid, s);
      } catch {
        // already gone
      }
    };
    signal('SIGTERM');
    for (let i = 0; i < 60 && systemProcesses.alive(pid); i++) await sleep(50);
    if (systemProcesses.alive(pid)) signal('SIGKILL');
  },
  sleep,
};

export interface BackgroundListener {
  pid: number;
  redirectUri: string;
  /** Ends the listener: for a login that failed before its URL was handed out. */
  stop(): Promise<void>;
}

export type Handshake = { port: number; redirectUri: string } | { error: string; message: string; hint?: string };

function isHandshake(value: unknown): value is Handshake {
  if (!value || typeof value !== 'object') return false;
  const v: Record<string, unknown> = { ...value };
  return (typeof v.port === 'number' && typeof v.redirectUri === 'string') || (typeof v.error === 'string' && typeof v.message === 'string');
}

/** The first line the listener writes on its report pipe. */
function readHandshake(stream: Readable, exited: Promise<number | null>): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    let text = '';
    const fail = (message: string) => reject(new CliError(message, { code: 'background_listener_failed' }));
    const timer = setTimeout(() => fail('The background listener did not start in time.'), HANDSHAKE_TIMEOUT_MS);
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text.slice(0, end));
      } catch {
        parsed = undefined;
      }
      if (isHandshake(parsed)) resolve(parsed);
      else fail('The background listener answered something unexpected.');
    });
    stream.on('error', () => undefined);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(`The background listener stopped before it was ready (exit ${code}).`);
    });
  });
}

/**
 * Starts the detached listener for a profile's login and waits until it listens. The command
 * line names no secret: the listener reads the pending login from the state repository.
 */
export async function startBackgroundListener(p: {
  profile: string;
  port?: number;
  cachedRedirectUri?: string;
  timeoutSeconds: number;
  /** A device login's poller (RFC 8628) rather than a loopback listener. */
  device?: boolean;
}): Promise<BackgroundListener> {
  const { spawn }: typeof import('node:child_process') = requireCommonJs('node:child_process');
  const script = process.argv[1];
  if (!script) throw new CliError('Cannot find the school program to run in the background.', { code: 'internal_error' });
  const args = [script, BACKGROUND_COMMAND, '--profile', p.profile, '--timeout', String(p.timeoutSeconds)];
  if (p.port !== undefined) args.push('--port', String(p.port));
  else if (p.cachedRedirectUri) args.push('--cached-redirect-uri', p.cachedRedirectUri);
  if (p.device) args.push('--device');
  const child = spawn(process.execPath, args, {
    detached: true,
    // Not the caller's working directory: the listener outlives the command, and Windows would
    // keep that directory from being removed or renamed until the listener ends.
    ...awayFromWorkingDirectory(process.env),
    // Nothing is written anywhere but the report pipe: no log that could hold a secret.
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    windowsHide: true,
  });
  const pid = child.pid;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const pipe = child.stdio[REPORT_FD];
  const stream = pipe && 'setEncoding' in pipe ? pipe : undefined;
  if (pid === undefined || !stream) throw new CliError('Could not start the background listener.', { code: 'background_listener_failed' });
  const stop = () => systemProcesses.stop(pid);
  let handshake: Handshake;
  try {
    handshake = await readHandshake(stream, exited);
  } catch (err) {
    await stop();
    throw err;
  } finally {
    stream.destroy();
  }
  if ('error' in handshake) throw new CliError(handshake.message, { code: isErrorCode(handshake.error) ? handshake.error : 'background_listener_failed', hint: handshake.hint });
  // From here on it lives on its own: this process may exit without waiting for it.
  child.unref();
  return { pid, redirectUri: handshake.redirectUri, stop };
}

/** Variables that name folders: made absolute before the listener's working directory changes. */
const PATH_VARIABLES = ['HOME', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'SCHOOL_CONFIG_DIR', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME'];

/** The working directory and environment of a process started in the home folder, with every folder variable still naming the same place. */
function awayFromWorkingDirectory(env: NodeJS.ProcessEnv, cwd = process.cwd()): { cwd: string; env: NodeJS.ProcessEnv } {
  const { homedir }: typeof import('node:os') = requireCommonJs('node:os');
  const { resolve }: typeof import('node:path') = requireCommonJs('node:path');
  const copy = { ...env };
  for (const name of PATH_VARIABLES) {
    const value = copy[name];
    if (value) copy[name] = resolve(cwd, value);
  }
  return { cwd: homedir(), env: copy };
}

/**
 * Ends a profile's pending login, whatever its kind: a new login supersedes it, a logout forgets
 * it. The outcome of an earlier one is forgotten too. True when one was pending.
 *
 * The record is what makes a background login wanted: it is removed under the profile's lock, the
 * lock under which a background login checks, just before it stores, that its record is still
 * there (see storeLogin). So a login approved after the cancel stores nothing, whether its process
 * was stopped here (a browser listener, which answers on its port as ours) or stops by itself at
 * its next poll (a device poller, which listens on no port).
 */
export async function cancelPendingLogin(deps: Pick<Deps, 'state' | 'clock' | 'signal'>, profile: string, processes: Processes = systemProcesses): Promise<boolean> {
  const record = await deps.state.pendingLoginRecord(profile);
  // Past its deadline the listener has exited by itself; the number may belong to another process
  // now, so it is stopped only once it answers as our listener on its port.
  if (
    record?.listenerPid &&
    record.expiresAt + DEADLINE_GRACE_SECONDS > nowSeconds(deps) &&
    processes.alive(record.listenerPid) &&
    (await processes.isListener(record.listenerPid, record.redirectUri))
  ) {
    await processes.stop(record.listenerPid);
  }
  if (record) await deps.state.locked(profileLockName(profile), deps.signal, () => deps.state.removePendingLogin(profile, record.storage));
  await deps.state.removeLoginOutcome(profile);
  return record !== undefined;
}

export type WaitResult = { kind: 'outcome'; outcome: LoginOutcome } | { kind: 'none' } | { kind: 'still_pending'; expiresAt: number };

/**
 * `login --wait`: polls the profile's pending login until its listener records how it ended (the
 * record is then consumed), or it turns out nobody is waiting, or `maxWaitSeconds` pass.
 */
export async function waitForPendingLogin(
  deps: Pick<Deps, 'state' | 'clock' | 'signal'>,
  profile: string,
  options: { maxWaitSeconds?: number; pollMs?: number } = {},
  processes: Processes = systemProcesses,
): Promise<WaitResult> {
  const started = deps.clock.now();
  const taken = async (): Promise<WaitResult | undefined> => {
    const outcome = await deps.state.loginOutcome(profile);
    if (!outcome) return undefined;
    await deps.state.removeLoginOutcome(profile);
    return { kind: 'outcome', outcome };
  };
  for (;;) {
    const done = await taken();
    if (done) return done;
    const record = await deps.state.pendingLoginRecord(profile);
    // The listener writes its outcome before it removes the record: look once more.
    if (!record?.listenerPid) return (await taken()) ?? { kind: 'none' };
    const now = nowSeconds(deps);
    const stuck = now > record.expiresAt + DEADLINE_GRACE_SECONDS;
    if (!processes.alive(record.listenerPid) || stuck) {
      const late = await taken();
      if (late) return late;
      // Stuck past its deadline: stopped only if the number is still our listener's.
      if (stuck && (await processes.isListener(record.listenerPid, record.redirectUri))) await processes.stop(record.listenerPid);
      await deps.state.removePendingLogin(profile, record.storage);
      return {
        kind: 'outcome',
        outcome: {
          profile,
          status: 'failed',
          error: 'login_failed',
          message: 'The background login stopped without finishing.',
          hint: `Start a new one with \`${loginCommandText({ profile, options: ['--no-wait'] })}\`.`,
          at: now,
        },
      };
    }
    if (options.maxWaitSeconds !== undefined && deps.clock.now() - started >= options.maxWaitSeconds * 1000) return { kind: 'still_pending', expiresAt: record.expiresAt };
    await processes.sleep(options.pollMs ?? 200, deps.signal);
  }
}
