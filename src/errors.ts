// One place decides what an error means to the user: its exit code and its one-line message.
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  auth: 4,
  interrupted: 130,
  terminated: 143,
} as const;

export interface CliErrorOptions {
  exitCode?: number;
  /** Stable machine-readable code, shown as `error` under --json. */
  code?: string;
  hint?: string;
  scope?: string;
  cause?: unknown;
}

export class CliError extends Error {
  readonly exitCode: number;
  readonly code: string;
  readonly hint?: string;
  readonly scope?: string;

  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? ExitCode.failure;
    this.code = options.code ?? 'error';
    this.hint = options.hint;
    this.scope = options.scope;
  }
}

export class UsageError extends CliError {
  constructor(message: string, options: Omit<CliErrorOptions, 'exitCode'> = {}) {
    super(message, { code: 'usage', ...options, exitCode: ExitCode.usage });
    this.name = 'UsageError';
  }
}

/** Authentication is needed or was refused: exit 4, whatever the cause. */
export class AuthError extends CliError {
  constructor(message: string, options: Omit<CliErrorOptions, 'exitCode'> = {}) {
    super(message, { code: 'auth_required', ...options, exitCode: ExitCode.auth });
    this.name = 'AuthError';
  }
}

export class InterruptedError extends CliError {
  constructor() {
    super('Interrupted.', { code: 'interrupted', exitCode: ExitCode.interrupted });
    this.name = 'InterruptedError';
  }
}

export interface ErrorReport {
  error: string;
  message: string;
  scope?: string;
  hint?: string;
}

interface OAuthLikeError {
  name?: string;
  code?: string;
  error?: string;
  error_description?: string;
  status?: number;
  message?: string;
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

/** The user-facing message of an error as a clause to embed in a sentence (no final period). */
export function errorReason(err: unknown): string {
  return describeError(err).message.replace(/\.$/, '');
}

/** Turns any thrown value into the report shown to the user. Never includes a stack trace. */
export function describeError(err: unknown): ErrorReport & { exitCode: number } {
  if (err instanceof CliError) {
    return { error: err.code, message: err.message, scope: err.scope, hint: err.hint, exitCode: err.exitCode };
  }
  const e = (err ?? {}) as OAuthLikeError & { cause?: unknown; hostname?: string; address?: string };
  // oauth4webapi reports a server's OAuth error body as ResponseBodyError / AuthorizationResponseError.
  if ((e.name === 'ResponseBodyError' || e.name === 'AuthorizationResponseError') && typeof e.error === 'string') {
    const desc = e.error_description ? `: ${e.error_description}` : '';
    const authFailure = e.error === 'invalid_grant' || e.error === 'invalid_token' || e.error === 'invalid_client';
    return {
      // A server's error code becomes the --json `error` only when it looks like one (RFC 6749 codes are plain).
      error: /^[a-z][a-z0-9_]{0,63}$/.test(e.error) ? e.error : 'server_error',
      message: `The server refused the request (${e.error}${desc}).`,
      exitCode: authFailure ? ExitCode.auth : ExitCode.failure,
    };
  }
  if (e.name === 'OperationProcessingError' || e.name === 'UnsupportedOperationError') {
    return { error: 'protocol_error', message: `The server's response failed a protocol check: ${e.message}`, exitCode: ExitCode.failure };
  }
  const code = typeof e.code === 'string' ? e.code : typeof (e.cause as OAuthLikeError)?.code === 'string' ? (e.cause as OAuthLikeError).code! : undefined;
  if (code && NETWORK_CODES[code]) {
    const where = e.hostname ?? e.address;
    return {
      error: 'network_error',
      message: `Could not reach the server${where ? ` (${where})` : ''}: ${NETWORK_CODES[code]}.`,
      exitCode: ExitCode.failure,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { error: 'error', message: message || 'Unexpected error.', exitCode: ExitCode.failure };
}
