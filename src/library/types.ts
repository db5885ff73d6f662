// The library's public types. They name only the language's and the platform's own types, so that
// the declarations shipped in the package stand alone.

export interface OpenSessionOptions {
  /** The profile to use; else SCHOOL_PROFILE, else `default`. */
  profile?: string;
  /** The school's base URL; else SCHOOL_BASE_URL, else the profile's. */
  baseUrl?: string;
  /** Send no token: the API serves anonymous requests. */
  anonymous?: boolean;
}

export interface TokenOptions {
  /** Seconds the access token must stay valid at least; it is refreshed first when it would not. */
  minTtl?: number;
}

/** A logged-in (or anonymous) session on one school, shared with the `school` command line. */
export interface Session {
  /** The profile the session belongs to. */
  readonly profile: string;
  /** The school's base URL: paths given to `fetch` are relative to it. */
  readonly baseUrl: string;
  /**
   * An API request with the session's token. A path is relative to the base URL; an absolute URL
   * on another origin rejects with `foreign_origin` and sends nothing. A 401 with an
   * `invalid_token` challenge is refreshed and retried once; every other status is returned as it is.
   */
  fetch(pathOrUrl: string | URL, init?: RequestInit): Promise<Response>;
  /** A valid access token, refreshed first when needed (under the lock the command line shares). */
  token(options?: TokenOptions): Promise<string>;
  /** The logged-in user's claims: userinfo, else the ID token's from login, else what introspection says. */
  whoami(): Promise<Record<string, unknown>>;
}

/** What a `403 insufficient_scope` answer asks for: see `scopeNeeded`. */
export interface ScopeNeeded {
  /** The scopes the answer's challenge names. */
  scope: string[];
  /** The `school login --add-scope …` command that adds them to the ones the profile holds. */
  hint: string;
}
