import type * as OAuthModule from 'oauth4webapi';
import { CliError, ExitCode } from '../errors.js';

// oauth4webapi's error codes, spelled here so that mapping an error never loads the library; the
// types make the compiler check each against the library's own constant.
const RESPONSE_BODY_ERROR: typeof OAuthModule.RESPONSE_BODY_ERROR = 'OAUTH_RESPONSE_BODY_ERROR';
const AUTHORIZATION_RESPONSE_ERROR: typeof OAuthModule.AUTHORIZATION_RESPONSE_ERROR = 'OAUTH_AUTHORIZATION_RESPONSE_ERROR';
const WWW_AUTHENTICATE_CHALLENGE: typeof OAuthModule.WWW_AUTHENTICATE_CHALLENGE = 'OAUTH_WWW_AUTHENTICATE_CHALLENGE';
const JSON_ATTRIBUTE_COMPARISON: typeof OAuthModule.JSON_ATTRIBUTE_COMPARISON = 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED';

/** The OAuth errors that mean the credentials themselves are no good: authentication is needed (exit 4). */
const AUTH_FAILURES = new Set(['invalid_grant', 'invalid_token', 'invalid_client', 'unauthorized_client']);

/** A server's OAuth error answer (RFC 6749 §5.2, or an error redirect), with its `error` code. */
export class ServerRefusal extends CliError {
  readonly error: string;
  readonly description?: string;

  constructor(message: string, error: string, description: string | undefined, exitCode: number) {
    super(message, { code: error, exitCode });
    this.name = 'ServerRefusal';
    this.error = error;
    this.description = description;
  }

  /** "invalid_grant: grant expired", for embedding in a sentence. */
  get detail(): string {
    return `${this.error}${this.description ? `: ${this.description}` : ''}`;
  }
}

/** An OAuth error answer from an endpoint (RFC 6749 §5.2): exit 4 when the credentials are no good. */
export function refusedRequest(error: string, description: string | undefined): ServerRefusal {
  return new ServerRefusal(
    `The server refused the request (${error}${description ? `: ${description}` : ''}).`,
    error,
    description,
    AUTH_FAILURES.has(error) ? ExitCode.auth : ExitCode.failure,
  );
}

interface CodedError {
  code: string;
  message: string;
  error?: unknown;
  error_description?: unknown;
  cause?: unknown;
}

function isOAuthError(err: unknown): err is CodedError {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('OAUTH_');
}

function comparedAttribute(cause: unknown): { attribute?: string; expected?: string; actual?: unknown } {
  if (!cause || typeof cause !== 'object') return {};
  const c: { attribute?: unknown; expected?: unknown; body?: unknown } = cause;
  const attribute = typeof c.attribute === 'string' ? c.attribute : undefined;
  const body = c.body && typeof c.body === 'object' ? c.body : undefined;
  const actual = attribute && body ? Object.entries(body).find(([k]) => k === attribute)?.[1] : undefined;
  return { attribute, expected: typeof c.expected === 'string' ? c.expected : undefined, actual };
}

/**
 * The one place where an oauth4webapi error becomes what the user reads, by its `code`; anything
 * that is not an oauth4webapi error is returned as it is.
 */
export function fromOAuthError(err: unknown): unknown {
  if (!isOAuthError(err)) return err;
  const error = typeof err.error === 'string' ? err.error : undefined;
  const description = typeof err.error_description === 'string' ? err.error_description : undefined;
  switch (err.code) {
    case RESPONSE_BODY_ERROR:
      if (!error) break;
      return refusedRequest(error, description);
    case AUTHORIZATION_RESPONSE_ERROR:
      if (!error) break;
      return new ServerRefusal(`Login failed: the authorization server answered ${error}${description ? `: ${description}` : ''}.`, error, description, ExitCode.failure);
    case WWW_AUTHENTICATE_CHALLENGE:
      return new CliError('The server rejected the access token.', { code: 'token_rejected', exitCode: ExitCode.auth, cause: err });
    case JSON_ATTRIBUTE_COMPARISON: {
      const { attribute, expected, actual } = comparedAttribute(err.cause);
      if (attribute === 'issuer' && typeof actual === 'string') {
        return new CliError(`The authorization server metadata claims the issuer ${actual}, but it was fetched for ${(expected ?? '').replace(/\/$/, '')}; refusing it.`, {
          code: 'discovery_failed',
          cause: err,
        });
      }
      if (attribute === 'sub') {
        return new CliError('The userinfo endpoint answered for another user than the one who signed in (its "sub" differs from the ID token\'s); refusing it.', {
          code: 'subject_mismatch',
          cause: err,
        });
      }
      break;
    }
  }
  return new CliError(`The server's response failed a protocol check: ${err.message}`, { code: 'protocol_error', cause: err });
}

/** Runs an oauth4webapi step, its failures mapped by `fromOAuthError`. */
export async function oauthStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw fromOAuthError(err);
  }
}
