import { type CodeWithExit, ERROR_CODES, type ErrorCode, type ExitOf } from './error-codes.js';

// One place decides what an error means to the user: its exit code and its one-line message.
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 4,
  hangup: 129,
  interrupted: 130,
  terminated: 143,
} as const;

/** What each exit status means, for `school help exit-codes` and the reference. */
export const EXIT_CODE_MEANINGS: Readonly<Record<keyof typeof ExitCode, string>> = {
  ok: 'success',
  failure:
    'failure, including a non-2xx answer to `call` (its body is still printed), a `status` showing a profile with a problem, and a `logout` whose revocation the server did not confirm (the local credentials are gone all the same)',
  usage: 'usage error: an unknown command or flag, a missing or bad argument or value',
  auth: 'authentication needed: not logged in, refresh refused, token rejected, or a missing scope (the hint is the `school login` command that fixes it)',
  hangup: 'the terminal closed (SIGHUP)',
  interrupted: 'interrupted (Ctrl-C)',
  terminated: 'terminated (SIGTERM)',
};

export interface CliErrorOptions<C extends ErrorCode = ErrorCode> {
  /** Stable machine-readable code from the catalogue, shown as `error` under --json; it decides the exit code. */
  code: C;
  /** Optional, for readability at the call site; the compiler holds it to the catalogue's exit code for `code`. */
  exitCode?: ExitOf<C>;
  hint?: string;
  /** The exact command the hint asks to run, as data (a front-end never parses it out of the hint). */
  command?: string;
  scope?: string;
  cause?: unknown;
}

export class CliError<C extends ErrorCode = ErrorCode> extends Error {
  readonly exitCode: number;
  readonly code: C;
  readonly hint?: string;
  readonly command?: string;
  readonly scope?: string;

  constructor(message: string, options: CliErrorOptions<C>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.code = options.code;
    this.exitCode = ERROR_CODES[options.code].exit;
    this.hint = options.hint;
    this.command = options.command;
    this.scope = options.scope;
  }
}

type UsageCode = CodeWithExit<typeof ExitCode.usage>;
type AuthCode = CodeWithExit<typeof ExitCode.auth>;

export class UsageError extends CliError<UsageCode> {
  constructor(message: string, options: Omit<CliErrorOptions<UsageCode>, 'exitCode' | 'code'> & { code?: UsageCode } = {}) {
    super(message, { ...options, code: options.code ?? 'usage' });
    this.name = 'UsageError';
  }
}

/** Authentication is needed or was refused: exit 4, whatever the cause. */
export class AuthError extends CliError<AuthCode> {
  constructor(message: string, options: Omit<CliErrorOptions<AuthCode>, 'exitCode' | 'code'> & { code?: AuthCode } = {}) {
    super(message, { ...options, code: options.code ?? 'auth_required' });
    this.name = 'AuthError';
  }
}

export class InterruptedError extends CliError<'interrupted'> {
  constructor() {
    super('Interrupted.', { code: 'interrupted' });
    this.name = 'InterruptedError';
  }
}

export interface ErrorReport {
  error: ErrorCode;
  message: string;
  scope?: string;
  hint?: string;
}

const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not match the host',
};

function stringField(err: unknown, key: string): string | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const value: unknown = Object.entries(err).find(([k]) => k === key)?.[1];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Where a connection failed, as far as the error (or its cause) says: the host, with the port
 * when known (`127.0.0.1:8080`: a wrong port is the usual mistake behind "connection refused").
 */
function networkPlace(err: unknown): string | undefined {
  for (const e of [err, err && typeof err === 'object' && 'cause' in err ? err.cause : undefined]) {
    const host = stringField(e, 'hostname') ?? stringField(e, 'address');
    if (!host) continue;
    const port = e && typeof e === 'object' && 'port' in e && typeof e.port === 'number' ? e.port : undefined;
    const shown = host.includes(':') ? `[${host}]` : host;
    return port === undefined ? host : `${shown}:${port}`;
  }
  return undefined;
}

/** The network failure an error (or its cause) names, as a key of NETWORK_CODES. */
function networkCode(err: unknown): string | undefined {
  for (const e of [err, err && typeof err === 'object' && 'cause' in err ? err.cause : undefined]) {
    if (e && typeof e === 'object' && 'code' in e && typeof e.code === 'string' && Object.hasOwn(NETWORK_CODES, e.code)) return e.code;
  }
  return undefined;
}

/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The system error code (ENOENT, ELOCKED…) of anything thrown, if it has one. */
export function errnoCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/** The user-facing message of an error as a clause to embed in a sentence (no final period). */
export function errorReason(err: unknown): string {
  return describeError(err).message.replace(/\.$/, '');
}

/** Turns any thrown value into the report shown to the user. Never includes a stack trace. */
export function describeError(err: unknown): ErrorReport & { exitCode: number } {
  if (err instanceof CliError) {
    return { error: err.code, message: err.message, scope: err.scope, hint: err.hint, exitCode: err.exitCode };
  }
  const code = networkCode(err);
  if (code) {
    const where = networkPlace(err);
    return {
      error: 'network_error',
      message: `Could not reach the server${where ? ` (${where})` : ''}: ${NETWORK_CODES[code]}.`,
      exitCode: ExitCode.failure,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  // Node's HTTP parser refused the answer (a control character in a header, a broken status line).
  if (errnoCode(err)?.startsWith('HPE_')) {
    return { error: 'protocol_error', message: `The server's answer is not valid HTTP (${message.replace(/^Parse Error: /, '').toLowerCase()}).`, exitCode: ExitCode.failure };
  }
  return { error: 'unexpected_error', message: message || 'Unexpected error.', exitCode: ExitCode.failure };
}
