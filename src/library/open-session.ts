import { type Deps, nowSeconds } from '../deps.js';
import { UsageError, describeError } from '../errors.js';
import { type HttpResponse, MAX_BYTES } from '../http/client.js';
import { ApiClient } from '../session/api-client.js';
import { readAnswer } from '../session/answer-problem.js';
import { lookUpIdentity } from '../session/identity.js';
import { requireLifetime } from '../session/lifetime.js';
import { serverFor } from '../session/server.js';
import { type Session as EngineSession, notLoggedIn, resolveSession } from '../session/session.js';
import { type Target, resolveTarget } from '../session/target.js';
import { SchoolError } from './school-error.js';
import type { OpenSessionOptions, Session, TokenOptions } from './types.js';
import { loginCommandText, placeholder } from '../util/login-command.js';

/** Any failure as the library reports it: the catalogue code, the command line's exit code, the hint. */
function toSchoolError(err: unknown): SchoolError {
  if (err instanceof SchoolError) return err;
  const report = describeError(err);
  return new SchoolError(report.message, { code: report.error, exitCode: report.exitCode, hint: report.hint, scope: report.scope, cause: err });
}

async function reported<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toSchoolError(err);
  }
}

// Statuses whose Response may carry no body (WHATWG Fetch's "null body status").
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** Our HTTP answer as the platform's Response, headers in the order and number the server sent them. */
function toResponse(res: HttpResponse): Response {
  if (res.status < 200 || res.status > 599) {
    throw new SchoolError(`The server answered with HTTP status ${res.status}, which a Response cannot hold.`, { code: 'protocol_error', exitCode: 1 });
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
    try {
      headers.append(res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '');
    } catch {
      // A header the platform refuses to hold (a forbidden character) is left out, as fetch() would not have read it either.
    }
  }
  const response = new Response(NULL_BODY_STATUS.has(res.status) ? null : new Uint8Array(res.body), { status: res.status, statusText: res.statusText, headers });
  Object.defineProperty(response, 'url', { value: res.url });
  return response;
}

function checkOptions(options: unknown): OpenSessionOptions {
  if (options === undefined) return {};
  if (!options || typeof options !== 'object') throw new UsageError('openSession takes an options object: { profile?, baseUrl?, anonymous? }.');
  const o: Record<string, unknown> = { ...options };
  for (const key of ['profile', 'baseUrl'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'string') throw new UsageError(`openSession: ${key} must be a string.`);
  }
  if (o.anonymous !== undefined && typeof o.anonymous !== 'boolean') throw new UsageError('openSession: anonymous must be true or false.');
  return { profile: o.profile as string | undefined, baseUrl: o.baseUrl as string | undefined, anonymous: o.anonymous as boolean | undefined };
}

function checkMinTtl(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 86_400) {
    throw new UsageError('token({ minTtl }) takes a whole number of seconds from 0 to 86400.');
  }
  return value;
}

/**
 * A session kept open by a script: the engine's session, renewed under the lock the command line
 * shares when its token is due (where another process's refresh is found), or after a 401.
 */
class LibrarySession implements Session {
  readonly profile: string;
  readonly baseUrl: string;
  readonly #deps: Deps;
  readonly #target: Target;
  #current: EngineSession | undefined;

  constructor(deps: Deps, target: Target, baseUrl: string, current: EngineSession | undefined) {
    this.#deps = deps;
    this.#target = target;
    this.profile = target.profile;
    this.baseUrl = baseUrl;
    this.#current = current;
  }

  /** The session with a token that lasts `minTtl` more seconds where it can be renewed. */
  async #usable(minTtl: number): Promise<EngineSession> {
    if (!this.#current) throw notLoggedIn(this.#target);
    const client = this.#client();
    const current = (await client.usableSession(minTtl)) ?? this.#current;
    this.#current = current;
    return current;
  }

  token(options: TokenOptions = {}): Promise<string> {
    return reported(async () => {
      const minTtl = checkMinTtl(options.minTtl);
      const session = await this.#usable(minTtl);
      requireLifetime(session, nowSeconds(this.#deps), minTtl);
      return session.accessToken;
    });
  }

  whoami(): Promise<Record<string, unknown>> {
    return reported(async () => {
      const session = await this.#usable(0);
      const server = await serverFor(this.#deps, session.baseUrl, session.issuer, session.profile);
      const known = session.source === 'env' ? undefined : await this.#deps.state.profile(session.profile);
      return (await lookUpIdentity(this.#deps, server, session, known, 'whoami')).claims;
    });
  }

  /** The API client of the session as it is now: the one place its token is put in a request. */
  #client(): ApiClient {
    return new ApiClient(this.#deps, { baseUrl: this.baseUrl, session: this.#current, foreignOriginHint: 'Use the platform fetch() for other origins.' });
  }

  fetch(pathOrUrl: string | URL, init?: RequestInit): Promise<Response> {
    return reported(async () => {
      const given = pathOrUrl instanceof URL ? pathOrUrl.href : pathOrUrl;
      if (typeof given !== 'string' || !given) throw new UsageError('fetch takes a path of the API or a URL.');
      // The token goes only to the origin it was issued for; an anonymous session stays on its school too.
      const url = this.#client().url(given);
      let request: Request;
      try {
        request = new Request(url, init);
      } catch (err) {
        throw new UsageError(`fetch: ${err instanceof Error ? err.message : String(err)}`);
      }
      const headers: Record<string, string> = Object.fromEntries(request.headers);
      const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
      const client = this.#client();
      client.checkHeaders(headers, 'the session adds its token (open an anonymous session to send your own)');
      const res = await client.send({ method: request.method, url, headers, body, signal: init?.signal ?? undefined, maxBytes: MAX_BYTES.body });
      this.#current = client.session;
      // Classified for its challenge alone, which the login its caller runs next then follows; the Response is the caller's to read.
      await readAnswer(this.#deps, res, { session: client.session, login: { profile: this.#target.profile, baseUrl: this.baseUrl } });
      return toResponse(res);
    });
  }
}

/** The library's session on given deps: what `openSession` does on the real world, and tests on fakes. */
export function openSessionWith(deps: Deps, options?: OpenSessionOptions): Promise<Session> {
  return reported(async () => {
    const checked = checkOptions(options);
    const target = await resolveTarget(deps.state, { ...checked, env: deps.env });
    const current = await resolveSession(deps, target);
    if (!current && !checked.anonymous) throw notLoggedIn(target);
    const baseUrl = current?.baseUrl ?? target.baseUrl;
    if (!baseUrl) throw new UsageError(`No base URL: pass { baseUrl }, set SCHOOL_BASE_URL, or log in with \`${loginCommandText({ profile: target.profile, baseUrl: placeholder('<url>') })}\` first.`);
    return new LibrarySession(deps, target, baseUrl, current);
  });
}
