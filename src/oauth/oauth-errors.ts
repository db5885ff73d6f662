import type * as OAuthModule from 'oauth4webapi';
import { serverErrorCode } from '../error-codes.js';
import { CliError, ExitCode } from '../errors.js';
import { isResponse } from '../http/web-types.js';

// oauth4webapi's error codes, spelled here so that mapping an error never loads the library; the
// types make the compiler check each against the library's own constant.
const RESPONSE_BODY_ERROR: typeof OAuthModule.RESPONSE_BODY_ERROR = 'OAUTH_RESPONSE_BODY_ERROR';
const AUTHORIZATION_RESPONSE_ERROR: typeof OAuthModule.AUTHORIZATION_RESPONSE_ERROR = 'OAUTH_AUTHORIZATION_RESPONSE_ERROR';
const WWW_AUTHENTICATE_CHALLENGE: typeof OAuthModule.WWW_AUTHENTICATE_CHALLENGE = 'OAUTH_WWW_AUTHENTICATE_CHALLENGE';
const JSON_ATTRIBUTE_COMPARISON: typeof OAuthModule.JSON_ATTRIBUTE_COMPARISON = 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED';
const RESPONSE_IS_NOT_JSON: typeof OAuthModule.RESPONSE_IS_NOT_JSON = 'OAUTH_RESPONSE_IS_NOT_JSON';
const RESPONSE_IS_NOT_CONFORM: typeof OAuthModule.RESPONSE_IS_NOT_CONFORM = 'OAUTH_RESPONSE_IS_NOT_CONFORM';
const PARSE_ERROR: typeof OAuthModule.PARSE_ERROR = 'OAUTH_PARSE_ERROR';
const JWT_CLAIM_COMPARISON: typeof OAuthModule.JWT_CLAIM_COMPARISON = 'OAUTH_JWT_CLAIM_COMPARISON_FAILED';
const JWT_TIMESTAMP_CHECK: typeof OAuthModule.JWT_TIMESTAMP_CHECK = 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED';
const INVALID_RESPONSE: typeof OAuthModule.INVALID_RESPONSE = 'OAUTH_INVALID_RESPONSE';

/**
 * A server's OAuth error answer (RFC 6749 §5.2, or an error redirect), with its `error` code as
 * sent; the catalogue code (and so the exit code) is that code where the catalogue knows it.
 */
export class ServerRefusal extends CliError {
  readonly error: string;
  readonly description?: string;
  /** The HTTP status of the answer, when it came over HTTP (not in a redirect). */
  readonly status?: number;

  constructor(message: string, error: string, description: string | undefined, status?: number) {
    super(message, { code: serverErrorCode(error) });
    this.name = 'ServerRefusal';
    this.error = error;
    this.description = description;
    this.status = status;
  }

  /** "invalid_grant: grant expired", for embedding in a sentence. */
  get detail(): string {
    return `${this.error}${this.description ? `: ${this.description}` : ''}`;
  }
}

interface CodedError {
  code: string;
  message: string;
  error?: unknown;
  error_description?: unknown;
  status?: unknown;
  cause?: unknown;
}

/** What a server answered, as far as an error can tell: its status and its OAuth error, if any. */
interface ServerAnswer {
  status: number;
  error?: string;
  description?: string;
}

/** Where an oauth4webapi step was talking to, for messages: "the token endpoint". */
export interface StepContext {
  where?: string;
  /** The answer behind an error whose body oauth4webapi did not read (not JSON, unexpected status). */
  answer?: ServerAnswer;
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

function refusalMessage(where: string | undefined, error: string, description: string | undefined, status: number | undefined): string {
  const answered = status ? ` answered HTTP ${status} and` : '';
  return `The ${where ?? 'server'}${answered} refused the request (${error}${description ? `: ${description}` : ''}).`;
}

/** A refusal named by its OAuth error code, or an answer without one named by its HTTP status. */
function fromAnswer(answer: ServerAnswer, where: string | undefined, cause: unknown): CliError {
  if (answer.error) {
    return new ServerRefusal(refusalMessage(where, answer.error, answer.description, answer.status), answer.error, answer.description, answer.status);
  }
  const what = answer.status >= 400 ? 'without an OAuth error code' : 'which is not the status this request expects';
  return new CliError(`The ${where ?? 'server'} answered HTTP ${answer.status}, ${what}.`, { code: 'server_error', cause });
}

/**
 * The one place where an oauth4webapi error becomes what the user reads, by its `code` and
 * `cause`; anything that is not an oauth4webapi error is returned as it is. Every answer of a
 * server is named by its HTTP status, and by its `error` code when it has one, whatever its body.
 */
export function fromOAuthError(err: unknown, context: StepContext = {}): unknown {
  if (!isOAuthError(err)) return err;
  const { where } = context;
  const error = typeof err.error === 'string' ? err.error : undefined;
  const description = typeof err.error_description === 'string' ? err.error_description : undefined;
  const status = typeof err.status === 'number' ? err.status : undefined;
  switch (err.code) {
    case RESPONSE_BODY_ERROR:
      if (!error) break;
      return new ServerRefusal(refusalMessage(where, error, description, status), error, description, status);
    case AUTHORIZATION_RESPONSE_ERROR:
      if (!error) break;
      return new ServerRefusal(`Login failed: the authorization server answered ${error}${description ? `: ${description}` : ''}.`, error, description);
    case WWW_AUTHENTICATE_CHALLENGE: {
      if (!where) return new CliError('The server rejected the access token.', { code: 'token_rejected', exitCode: ExitCode.auth, cause: err });
      // At an authorization server's endpoint a challenge refuses the client, not a token (RFC 6749 §5.2).
      const challenged = challengeError(err.cause);
      return fromAnswer({ status: status ?? 401, error: challenged ?? 'invalid_client' }, where, err);
    }
    case RESPONSE_IS_NOT_JSON:
    case RESPONSE_IS_NOT_CONFORM: {
      const answer = context.answer ?? (isResponse(err.cause) ? { status: err.cause.status } : undefined);
      if (answer) return fromAnswer(answer, where, err);
      break;
    }
    case JWT_CLAIM_COMPARISON:
    case JWT_TIMESTAMP_CHECK:
    case INVALID_RESPONSE:
      // The only JWT checked is the ID token; its faults carry the token's claims (a missing or
      // wrong issuer, audience or nonce, an expiry past the clock tolerance).
      if (!hasClaims(err.cause)) break;
      return new CliError(`The ID token from the ${where ?? 'server'} failed a check (${err.message}); refusing it.`, { code: 'invalid_id_token', cause: err });
    case PARSE_ERROR:
      return new CliError(`The ${where ?? 'server'} answered with a body that could not be read.`, { code: 'server_error', cause: err });
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
  return new CliError(`The ${where ? `${where}'s` : "server's"} response failed a protocol check: ${err.message}`, { code: 'protocol_error', cause: err });
}

function hasClaims(cause: unknown): boolean {
  return Boolean(cause && typeof cause === 'object' && 'claims' in cause);
}

function challengeError(challenges: unknown): string | undefined {
  if (!Array.isArray(challenges)) return undefined;
  for (const c of challenges) {
    const parameters: unknown = c && typeof c === 'object' && 'parameters' in c ? c.parameters : undefined;
    if (parameters && typeof parameters === 'object' && 'error' in parameters && typeof parameters.error === 'string') return parameters.error;
  }
  return undefined;
}

/**
 * Whether an oauth4webapi error is a refusal of the client's authentication: an answer with HTTP
 * 401 (with or without a body or a challenge), or the OAuth error `invalid_client` (RFC 6749 §5.2).
 */
export function refusesClientAuthentication(err: unknown): boolean {
  if (!isOAuthError(err)) return false;
  if (err.error === 'invalid_client' || err.status === 401) return true;
  return isResponse(err.cause) && err.cause.status === 401;
}

const MAX_ERROR_BODY = 64 * 1024;

/**
 * The status and OAuth error of a Response an error carries whose body oauth4webapi left unread:
 * an OAuth error is still named when its JSON comes with another content type (text/plain).
 */
async function unreadAnswer(err: unknown): Promise<ServerAnswer | undefined> {
  if (!isOAuthError(err) || !isResponse(err.cause)) return undefined;
  const response = err.cause;
  const answer: ServerAnswer = { status: response.status };
  if (response.bodyUsed) return answer;
  try {
    const text = (await response.text()).slice(0, MAX_ERROR_BODY);
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string' && body.error) {
      answer.error = body.error;
      if ('error_description' in body && typeof body.error_description === 'string') answer.description = body.error_description;
    }
  } catch {
    // Not JSON (an HTML page, plain text, nothing): the status alone is named.
  }
  return answer;
}

/** Runs an oauth4webapi step against `where` ("the token endpoint"), its failures mapped by `fromOAuthError`. */
export async function oauthStep<T>(where: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw fromOAuthError(err, { where, answer: await unreadAnswer(err) });
  }
}
