/**
 * Every `error` code a failure can carry (the `error` field of a `--json` error), with its exit
 * code, what it means and what a script or agent should do about it. `CliError` only takes codes
 * from here, and its exit code comes from here, so the table of docs/troubleshooting.md (checked
 * against this list by a policy test) is what the program does.
 */

/** What the caller should do next. */
export type ErrorAction =
  /** Try the same command again, later. */
  | 'retry'
  /** Run `school login` (the hint gives the whole command line). */
  | 'log_in'
  /** Log in again with the scope the error names (`scope`; the hint gives the command line). */
  | 'add_scope'
  /** Change the command line: a flag, an argument, a URL. */
  | 'fix_command'
  /** Change the machine: keychain, files, permissions, environment variables, proxy. */
  | 'fix_environment'
  /** Nothing local helps: the server (or this installation) misbehaves; report it. */
  | 'report'
  /** Nothing to do: the user stopped the command. */
  | 'none';

export interface ErrorCodeInfo {
  /** The process exit status that goes with the code. */
  exit: 1 | 2 | 4 | 130;
  /** One line: what happened. */
  meaning: string;
  action: ErrorAction;
  /** An OAuth error code a server may send (RFC 6749, 6750, 7009, 7591), passed on as it is. */
  fromServer?: true;
}

export const ERROR_CODES = {
  // Usage: the command line is wrong (exit 2).
  usage: { exit: 2, meaning: 'The command line is wrong: an unknown command or flag, a missing or bad argument.', action: 'fix_command' },
  invalid_base_url: { exit: 2, meaning: 'The base URL cannot be used as it is (no scheme, a query or fragment); the message names the URLs it may have meant.', action: 'fix_command' },
  insecure_url: { exit: 2, meaning: 'A URL on the command line is not https (plain http is allowed for loopback addresses only).', action: 'fix_command' },
  blocked_port: { exit: 2, meaning: 'The --port is below 1024 or one that browsers refuse to connect to.', action: 'fix_command' },
  invalid_scope: { exit: 2, meaning: 'A requested scope is not offered by the server; the hint is the corrected command.', action: 'fix_command', fromServer: true },
  foreign_origin: { exit: 2, meaning: 'call: the URL is on another origin than the session; the token is never sent there.', action: 'fix_command' },
  invalid_jq: { exit: 2, meaning: 'call: the --jq expression does not compile.', action: 'fix_command' },

  // Authentication is needed (exit 4).
  auth_required: { exit: 4, meaning: 'Authentication is needed.', action: 'log_in' },
  not_logged_in: { exit: 4, meaning: 'The profile has no session; the hint is the login command.', action: 'log_in' },
  credentials_missing: { exit: 4, meaning: 'The profile exists but its tokens are gone from the keychain or file, or the keychain is locked.', action: 'log_in' },
  issuer_mismatch: { exit: 4, meaning: 'The stored tokens come from another authorization server than the profile names.', action: 'log_in' },
  issuer_changed: { exit: 4, meaning: 'The base URL is now served by another authorization server than the one the tokens came from.', action: 'log_in' },
  corrupt_store: { exit: 4, meaning: 'The stored tokens of the profile cannot be read.', action: 'log_in' },
  refresh_refused: { exit: 4, meaning: 'The server refused to renew the session (or there is nothing to renew it with); it counts as logged out.', action: 'log_in' },
  token_rejected: { exit: 4, meaning: 'The API rejected the access token.', action: 'log_in' },
  insufficient_scope: { exit: 4, meaning: 'The token lacks a scope the request needs; `scope` names it and the hint is the login command that adds it.', action: 'add_scope', fromServer: true },
  ttl_unavailable: { exit: 4, meaning: 'token --min-ttl: the server gives no access token valid that long; the message says how long its freshest one lasts.', action: 'fix_command' },
  login_pending: { exit: 4, meaning: 'A login started with --no-wait is still waiting for the browser.', action: 'log_in' },
  no_pending_login: { exit: 4, meaning: 'login --wait: no login is pending for the profile.', action: 'log_in' },
  login_timeout: { exit: 4, meaning: 'login --wait: the pending login ended at its --timeout without the browser coming back.', action: 'log_in' },
  login_failed: { exit: 4, meaning: 'login --wait: the pending login failed; the message says why.', action: 'log_in' },
  login_unattended: {
    exit: 4,
    meaning: 'login in CI or headless mode without --no-wait: nobody would open the browser; the message names SCHOOL_TOKEN and SCHOOL_REFRESH_TOKEN instead.',
    action: 'fix_environment',
  },
  invalid_grant: { exit: 4, meaning: 'The server refused a grant (code or refresh token): expired, revoked or used twice.', action: 'log_in', fromServer: true },
  invalid_token: { exit: 4, meaning: 'The server refused the token as invalid.', action: 'log_in', fromServer: true },
  invalid_client: { exit: 4, meaning: 'The server no longer knows the client registration (it is forgotten and made again at the next login).', action: 'log_in', fromServer: true },
  unauthorized_client: { exit: 4, meaning: 'The client may not use this grant.', action: 'log_in', fromServer: true },

  // Failures (exit 1).
  network_error: { exit: 1, meaning: 'The server could not be reached: connection refused, name not found, TLS problem, no answer.', action: 'retry' },
  timeout: { exit: 1, meaning: 'A deadline passed (call --timeout, or login waiting for the browser).', action: 'retry' },
  response_too_large: { exit: 1, meaning: 'An answer was larger than the CLI reads; it stopped reading.', action: 'fix_command' },
  http_error: { exit: 1, meaning: 'call: the API answered with a status other than 2xx; the body is still printed on stdout.', action: 'fix_command' },
  page_failed: { exit: 1, meaning: 'call --paginate: a page after the first failed; the pages before it were printed.', action: 'retry' },
  pagination_error: { exit: 1, meaning: 'call --paginate: the Link headers cannot be followed (another origin, a loop, no end).', action: 'report' },
  not_json: { exit: 1, meaning: 'call: --jq or --slurp was given, but the answer is not JSON.', action: 'fix_command' },
  jq_error: { exit: 1, meaning: 'call: jq failed while running the --jq expression on the answer.', action: 'fix_command' },
  openapi_unavailable: { exit: 1, meaning: 'The API description (/openapi.json, or the --description URL or file) could not be fetched or read.', action: 'retry' },
  openapi_invalid: { exit: 1, meaning: 'The API description is not an OpenAPI 3 document in JSON or YAML.', action: 'report' },
  userinfo_failed: { exit: 1, meaning: 'whoami: the userinfo endpoint failed.', action: 'retry' },
  unsupported: { exit: 1, meaning: 'The server lacks what the command needs (for example a userinfo endpoint).', action: 'report' },
  discovery_failed: { exit: 1, meaning: 'The server metadata could not be fetched or is not valid: check the base URL.', action: 'fix_command' },
  insecure_metadata: { exit: 1, meaning: 'The server metadata names an endpoint that is not https.', action: 'report' },
  foreign_endpoint: {
    exit: 1,
    meaning: 'The server names an endpoint or a URI on another origin than its own where it must not (a PAR request_uri, a registration_client_uri); nothing was sent there.',
    action: 'report',
  },
  pkce_unsupported: { exit: 1, meaning: 'The authorization server does not offer PKCE with S256; the CLI will not log in without it.', action: 'report' },
  registration_unsupported: { exit: 1, meaning: 'The authorization server offers no dynamic client registration.', action: 'report' },
  registration_failed: { exit: 1, meaning: 'Client registration was refused or answered without what it must return.', action: 'report' },
  invalid_redirect_uri: { exit: 1, meaning: 'The server refused the redirect address at registration.', action: 'report', fromServer: true },
  invalid_client_metadata: { exit: 1, meaning: 'The server refused the client metadata at registration (RFC 7591); the message says what it objected to.', action: 'report', fromServer: true },
  unsupported_auth_method: { exit: 1, meaning: 'The server does not accept the client authentication asked for (--confidential or not).', action: 'fix_command' },
  access_denied: { exit: 1, meaning: 'The sign-in was refused in the browser.', action: 'log_in', fromServer: true },
  invalid_callback: { exit: 1, meaning: 'The browser came back with a response that failed a security check (state, issuer); it was not used.', action: 'log_in' },
  port_in_use: { exit: 1, meaning: 'The --port is taken by another program.', action: 'fix_command' },
  port_denied: { exit: 1, meaning: 'The system does not allow listening on the --port.', action: 'fix_command' },
  invalid_token_response: { exit: 1, meaning: 'The server issued a token with characters an HTTP header cannot carry; it was refused.', action: 'report' },
  dpop_nonce_loop: { exit: 1, meaning: 'The server asked for a new DPoP nonce again right after the CLI used the one it gave; the CLI stopped rather than ask forever.', action: 'report' },
  invalid_dpop_proof: { exit: 1, meaning: 'The server refused the DPoP proof of a request (RFC 9449); `login --no-dpop` logs in without DPoP.', action: 'report', fromServer: true },
  protocol_error: { exit: 1, meaning: 'A server answer failed an OAuth protocol check, or was not valid HTTP.', action: 'report' },
  invalid_id_token: { exit: 1, meaning: 'The ID token from the token endpoint failed a check (issuer, audience, nonce, expiry, signature algorithm); it was not used.', action: 'report' },
  subject_mismatch: { exit: 1, meaning: 'The userinfo endpoint answered for another user than the one who signed in.', action: 'report' },
  invalid_request: { exit: 1, meaning: 'The server called a request malformed.', action: 'report', fromServer: true },
  unsupported_grant_type: { exit: 1, meaning: 'The server does not offer a grant the CLI needs.', action: 'report', fromServer: true },
  unsupported_token_type: { exit: 1, meaning: 'The server cannot revoke this kind of token.', action: 'report', fromServer: true },
  server_error: { exit: 1, meaning: 'The authorization server failed.', action: 'retry', fromServer: true },
  temporarily_unavailable: { exit: 1, meaning: 'The authorization server is overloaded or in maintenance.', action: 'retry', fromServer: true },
  oauth_error: { exit: 1, meaning: 'The server answered with another OAuth error; the message names it.', action: 'report' },
  logout_incomplete: {
    exit: 1,
    meaning: 'logout: the server refused or did not confirm a revocation, or a stored secret could not be removed (the profile is then kept so a later logout can finish); the message says which.',
    action: 'retry',
  },
  proxy_unsupported: { exit: 1, meaning: 'HTTPS_PROXY or HTTP_PROXY names a proxy that is not http://.', action: 'fix_environment' },
  no_credential_store: { exit: 1, meaning: 'Neither the OS keychain nor the file store can be used.', action: 'fix_environment' },
  keychain_error: { exit: 1, meaning: 'The OS keychain failed.', action: 'fix_environment' },
  unsafe_permissions: { exit: 1, meaning: 'A file or folder holding credentials can be read by other users.', action: 'fix_environment' },
  corrupt_credential_file: { exit: 1, meaning: 'The plain-text credential file is damaged; the message says where it is.', action: 'fix_environment' },
  corrupt_config: { exit: 1, meaning: 'The configuration file is not valid JSON.', action: 'fix_environment' },
  lock_timeout: { exit: 1, meaning: 'Another school process held a lock on the configuration too long.', action: 'retry' },
  missing_file: { exit: 1, meaning: 'A file of this installation is missing.', action: 'fix_environment' },
  problems_found: { exit: 1, meaning: 'doctor found a problem; the report (still printed) says what and how to fix it.', action: 'fix_environment' },
  profile_unusable: { exit: 1, meaning: 'status: a profile shown cannot be used now (refused session, missing tokens…); the report (still printed) says why.', action: 'log_in' },
  background_listener_failed: { exit: 1, meaning: 'login --no-wait: the background listener for the browser could not be started.', action: 'retry' },
  internal_error: { exit: 1, meaning: 'The CLI reached a state it should not; report it.', action: 'report' },
  unexpected_error: { exit: 1, meaning: 'An error the CLI does not classify; the message says what failed.', action: 'report' },

  interrupted: { exit: 130, meaning: 'Stopped by Ctrl-C (exit 130), SIGTERM (exit 143) or a closed terminal (SIGHUP, exit 129).', action: 'none' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** What to do about a code, in words (`school help errors`). */
export const ERROR_ACTION_TEXT: Readonly<Record<ErrorAction, string>> = {
  retry: 'retry later',
  log_in: 'log in (`hint` has the command)',
  add_scope: 'log in with the scope (`hint` has the command)',
  fix_command: 'fix the command line',
  fix_environment: 'fix the environment',
  report: 'report it to the server operator',
  none: 'nothing',
};

type ErrorInfoExit = ErrorCodeInfo['exit'];

/** The exit status that goes with a code. */
export type ExitOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]['exit'];

/** The codes whose exit status is `E`. */
export type CodeWithExit<E extends number> = { [C in ErrorCode]: ExitOf<C> extends E ? C : never }[ErrorCode];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}

/** Whether a code (one read back from a record, say) is in the catalogue with exit status `exit`. */
export function isCodeWithExit<E extends ErrorInfoExit>(value: string | undefined, exit: E): value is CodeWithExit<E> {
  return value !== undefined && isErrorCode(value) && ERROR_CODES[value].exit === exit;
}

/** The catalogue code for an OAuth `error` a server sent: itself when known, else `oauth_error`. */
export function serverErrorCode(error: string): ErrorCode {
  if (!isErrorCode(error)) return 'oauth_error';
  const info: ErrorCodeInfo = ERROR_CODES[error];
  return info.fromServer ? error : 'oauth_error';
}
