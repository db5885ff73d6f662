import type { Env } from '../types/env.js';
import { loginCommandText } from '../util/login-command.js';
import { requireCommonJs } from '../util/require.js';

/**
 * Why the OS keychain cannot be reached, when the error and the process's surroundings tell:
 * most often an agent host that starts `school` with a trimmed environment or inside a sandbox.
 * Linux finds the Secret Service on the session bus: through DBUS_SESSION_BUS_ADDRESS, else the
 * socket `$XDG_RUNTIME_DIR/bus`; a host that passes on neither leaves it unfindable.
 */
export type KeychainCause =
  /** Neither variable leads to a session bus. `socket`: one found where XDG_RUNTIME_DIR would have led. */
  | { kind: 'no_session_bus'; socket?: string }
  /** Something around the process (an agent host's sandbox) forbids the connection. */
  | { kind: 'sandboxed' }
  | { kind: 'locked' }
  /** A session bus, but no Secret Service on it. */
  | { kind: 'no_secret_service' };

/** What the cause is read from; tests hand in their own. */
export interface KeychainSurroundings {
  platform: NodeJS.Platform;
  env: Env;
  /** Whether a file (the bus socket) exists. */
  exists(path: string): boolean;
  /** The user's id, for the usual runtime directory `/run/user/<uid>`. */
  uid?: number;
}

export function systemSurroundings(env: Env = process.env, platform: NodeJS.Platform = process.platform): KeychainSurroundings {
  const { existsSync }: typeof import('node:fs') = requireCommonJs('node:fs');
  return { platform, env, exists: existsSync, uid: process.getuid?.() };
}

const FORBIDDEN = /operation not permitted|\bEPERM\b|\bEACCES\b|permission denied|access denied/i;
const LOCKED = /\blocked\b/i;
const NO_SERVICE = /org\.freedesktop\.secrets|not provided by any \.service files|no such (?:interface|object)|ServiceUnknown/i;

/** The cause of a keychain failure whose reason (its error's message) is given, or undefined when it cannot be told. */
export function keychainCause(reason: string, at: KeychainSurroundings): KeychainCause | undefined {
  if (FORBIDDEN.test(reason)) return { kind: 'sandboxed' };
  // A keyring that answered (locked, or no Secret Service on the bus) was reached: the variables are not what failed.
  if (LOCKED.test(reason)) return { kind: 'locked' };
  if (NO_SERVICE.test(reason)) return { kind: 'no_secret_service' };
  if (at.platform === 'linux' && !at.env.DBUS_SESSION_BUS_ADDRESS) {
    const runtime = at.env.XDG_RUNTIME_DIR;
    // A bus found through XDG_RUNTIME_DIR: the variables are not what failed.
    if (!(runtime && at.exists(`${runtime}/bus`))) {
      const usual = at.uid === undefined ? undefined : `/run/user/${at.uid}/bus`;
      return { kind: 'no_session_bus', socket: !runtime && usual && at.exists(usual) ? usual : undefined };
    }
  }
  return undefined;
}

/** The variables a host must pass on for the keychain, as Codex's `env_vars` takes them. */
const BUS_VARIABLES = ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'] as const;

/** One or two sentences for the person: what is wrong and what fixes it. */
export function keychainCauseText(cause: KeychainCause): string {
  switch (cause.kind) {
    case 'no_session_bus':
      return (
        `This process was started without ${BUS_VARIABLES.join(' and ')}, so it cannot find the session bus the keychain is on` +
        `${cause.socket ? ` (it is at ${cause.socket})` : ''}. ` +
        `Whatever starts school must pass both on: Codex: env_vars = ${JSON.stringify(BUS_VARIABLES).replace(/,/g, ', ')} in ~/.codex/config.toml; ` +
        'a host with an "env" object for the server: both variables with their values from a terminal (`echo $DBUS_SESSION_BUS_ADDRESS $XDG_RUNTIME_DIR`); then start it again'
      );
    case 'sandboxed':
      return (
        'A sandbox around this process forbids the connection to the keychain ("Operation not permitted"), as an agent host\'s sandbox does (Codex\'s by default). ' +
        'Run the command outside the sandbox (the host asks the person first), or use `school mcp`, which the host starts outside it'
      );
    case 'locked':
      return 'The keyring is locked: unlock it (logging in to the desktop session usually does; without one, `gnome-keyring-daemon --unlock`), then try again';
    case 'no_secret_service':
      return `No keychain service (Secret Service) runs on the session bus: start one (e.g. gnome-keyring), or keep the tokens in a 0600 file with \`${loginCommandText({ options: ['--insecure-storage'] })}\``;
  }
}
