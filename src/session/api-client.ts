import { type Deps, nowSeconds } from '../deps.js';
import { CliError, UsageError } from '../errors.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../http/client.js';
import { parseLinkHeader } from '../http/link-header.js';
import { ABSOLUTE_URL, type RequestTarget, plainTarget, targetUrl } from '../http/request-url.js';
import { assertSafeUrl } from '../http/transport.js';
import { parseChallenges, readChallengeHeader } from '../oauth/challenge.js';
import { dpopProver, retryOnceForNonce } from '../oauth/dpop.js';
import { noteNonce, recallNonce } from './dpop-nonces.js';
import { needsRefresh } from './refresh-policy.js';
import { retryAfterRefresh } from './retry-after-refresh.js';
import type { Session } from './usable-session.js';

/**
 * The one API client of every front-end (`call`, `school api`, the library, `school mcp`): the only
 * code that puts an access token in a request. It holds the rules that guard the token:
 * - the token goes only to the base URL's origin: a URL elsewhere is refused (`foreign_origin`)
 *   before anything is sent, and so is a next page elsewhere;
 * - a caller's own `Authorization` header is refused: the client adds the token;
 * - a token due for renewal is renewed first (refresh-policy.ts decides when), under the lock;
 * - a 401 `invalid_token` is cured by one refresh and the request sent once more;
 * - a DPoP-bound token goes with a fresh proof, and the nonce the API asks for is used;
 * - pagination follows RFC 8288 `next` links on the same origin, each page once.
 */

export interface ApiRequest extends Omit<HttpRequest, 'url' | 'path' | 'method' | 'body'> {
  method: string;
  url: URL;
  /** The path and query exactly as sent, when built by the request builder (see api/request-builder.ts). */
  path?: string;
  body?: Buffer;
}

export interface ApiClientOptions {
  baseUrl: string;
  /** The session whose token goes with each request; none for an anonymous client. */
  session?: Session;
  /**
   * Without a session, an absolute URL may name another origin (`call --anonymous`): nothing of
   * the session goes there. Otherwise every request stays on the base URL's origin.
   */
  anonymousAnyOrigin?: boolean;
  /** How many 401s a refresh may cure in this client's life (one run of `call`: 1); by default one per request. */
  refreshLimit?: number;
  /** The hint of a `foreign_origin` refusal: what the person can do instead. */
  foreignOriginHint?: string;
}

/** More pages than any real listing has: a server that never stops is treated as a loop. */
export const MAX_PAGES = 10_000;

/** Whether a protected resource's answer asks for a (new) DPoP nonce (RFC 9449 §9). */
async function asksForNonce(res: HttpResponse): Promise<boolean> {
  if (res.status !== 401 || !res.headers['dpop-nonce']) return false;
  return (await parseChallenges(res.headers['www-authenticate'])).some((c) => c.scheme === 'dpop' && c.parameters.error === 'use_dpop_nonce');
}

/**
 * Sends with the session's access token: as a Bearer token (RFC 6750), or, when the token is bound
 * to a key, with the DPoP scheme and a fresh proof of the key for this method and URL (RFC 9449 §7).
 * A nonce the API asks for is used and the request sent once more; asking again right after is a
 * loop this client does not follow.
 */
async function sendWithToken(http: HttpClient, session: Pick<Session, 'accessToken' | 'dpopKey' | 'dpopNonces'>, req: HttpRequest & { method: string; url: URL }): Promise<HttpResponse> {
  const { accessToken, dpopKey, dpopNonces } = session;
  if (!dpopKey) return http.request({ ...req, headers: { ...req.headers, authorization: `Bearer ${accessToken}` } });
  const prover = await dpopProver(dpopKey);
  await recallNonce(prover, req.url, dpopNonces);
  // The proof's htu is the URL as sent (RFC 9449 §4.2): its path may be one the URL parser would rewrite.
  const htu = { origin: req.url.origin, pathname: (req.path ?? req.url.pathname).replace(/[?#].*$/s, '') } as URL;
  const send = async () => {
    const res = await http.request({ ...req, headers: { ...req.headers, authorization: `DPoP ${accessToken}`, dpop: await prover.proof(req.method, htu, accessToken) } });
    await noteNonce(prover, req.url, res.headers['dpop-nonce'], dpopNonces);
    return res;
  };
  return retryOnceForNonce('API', send, asksForNonce);
}

export class ApiClient {
  readonly baseUrl: string;
  readonly origin: string;
  readonly #deps: Pick<Deps, 'http' | 'clock'>;
  readonly #options: ApiClientOptions;
  #session: Session | undefined;
  #refreshesLeft: number;

  constructor(deps: Pick<Deps, 'http' | 'clock'>, options: ApiClientOptions) {
    this.#deps = deps;
    this.#options = options;
    this.baseUrl = options.baseUrl;
    this.origin = new URL(options.baseUrl).origin;
    this.#session = options.session;
    this.#refreshesLeft = options.refreshLimit ?? Number.POSITIVE_INFINITY;
  }

  /** The session as it is now: renewed or refreshed sessions replace the one given. */
  get session(): Session | undefined {
    return this.#session;
  }

  /**
   * The session with a token that lasts `minTtlSeconds` more where it can be renewed: renewed
   * under the lock when it is due (refresh-policy.ts), where another process's refresh is found.
   */
  async usableSession(minTtlSeconds = 0): Promise<Session | undefined> {
    const session = this.#session;
    if (!session?.renew || !needsRefresh({ expiresAt: session.expiresAt, obtainedAt: session.obtainedAt ?? 0 }, nowSeconds(this.#deps), minTtlSeconds)) return session;
    this.#session = await session.renew(minTtlSeconds);
    return this.#session;
  }

  /**
   * The URL of a path of the API (relative to the base URL, `..` resolved within its origin) or
   * of an absolute URL; another origin is refused with `foreign_origin`.
   */
  url(pathOrUrl: string | URL): URL {
    const given = pathOrUrl instanceof URL ? pathOrUrl.href : pathOrUrl;
    const url = assertSafeUrl(ABSOLUTE_URL.test(given) ? new URL(given) : targetUrl(this.baseUrl, given), 'URL');
    this.#checkOrigin(url);
    return url;
  }

  #checkOrigin(url: URL): void {
    if (url.origin === this.origin) return;
    if (!this.#session && this.#options.anonymousAnyOrigin) return;
    const what = this.#session ? `the token for ${this.origin}` : `a request of the session for ${this.origin}`;
    throw new UsageError(`Refusing to send ${what} to ${url.origin}.`, { code: 'foreign_origin', hint: this.#options.foreignOriginHint });
  }

  /** Refuses a caller's own `Authorization` header: the token is the client's to add. */
  checkHeaders(headers: Readonly<Record<string, string>> | undefined, hint = 'the token is added for you'): void {
    if (!this.#session || !headers) return;
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
      throw new UsageError(`Do not pass an Authorization header: ${hint}.`, { code: 'usage' });
    }
  }

  /**
   * Sends one request: on the base URL's origin (checked again here, whoever built the URL), with
   * the token renewed first when due, and refreshed and sent once more after a 401 a refresh may
   * cure. Every status is returned as it is.
   */
  async send(req: ApiRequest): Promise<HttpResponse> {
    this.#checkOrigin(req.url);
    this.checkHeaders(req.headers);
    const session = await this.usableSession();
    if (!session) return this.#deps.http.request(req);
    const refreshable = async (res: HttpResponse) => this.#refreshesLeft > 0 && res.status === 401 && (await readChallengeHeader(res.status, res.headers['www-authenticate'])).refresh;
    const sent = await retryAfterRefresh(session, (s) => sendWithToken(this.#deps.http, s, req), refreshable);
    if (sent.session !== session) {
      this.#refreshesLeft -= 1;
      this.#session = sent.session;
    }
    return sent.answer;
  }

  /**
   * A walk through the pages of a listing that starts at `first`: `next(answer)` gives the next
   * page's URL, or undefined at the end. A next link on another origin, a page already fetched
   * (the first one included) or more than MAX_PAGES pages end the walk with `pagination_error`.
   */
  pages(first: RequestTarget | URL): PageWalk {
    return new PageWalk(first instanceof URL ? plainTarget(first) : first, this.origin);
  }
}

/** One walk through the pages of a listing; see ApiClient.pages. */
export class PageWalk {
  readonly #origin: string;
  readonly #fetched = new Set<string>();
  #page = 1;

  constructor(first: RequestTarget, origin: string) {
    this.#origin = origin;
    this.#fetched.add(`${first.url.origin}${first.path}`);
    this.#fetched.add(withoutFragment(first.url));
  }

  /** The number of the page the last answer given to `next` was. */
  get page(): number {
    return this.#page;
  }

  /** The next page's URL after this answer (undefined at the end of the listing), checked; counts it as fetched. */
  next(answer: Pick<HttpResponse, 'headers' | 'url'>): URL | undefined {
    const next = nextLink(answer.headers.link, answer.url);
    if (!next) return undefined;
    const page = this.#page + 1;
    if (next.origin !== this.#origin) {
      throw new CliError(`page ${page}: the next link points to ${next.origin}, another origin than ${this.#origin}; not following it.`, { code: 'pagination_error' });
    }
    const key = withoutFragment(next);
    if (this.#fetched.has(key)) {
      throw new CliError(`page ${page}: the next link repeats ${next.pathname}${next.search}, already fetched; stopping to avoid a loop.`, { code: 'pagination_error' });
    }
    if (page > MAX_PAGES) throw new CliError(`Stopped after ${MAX_PAGES} pages: the listing does not end.`, { code: 'pagination_error' });
    this.#fetched.add(key);
    this.#page = page;
    return next;
  }
}

/**
 * A walk through the pages of a listing whose first page is the first answer given to `next`,
 * for a caller that learns where its first request went from the answer (its URL as sent).
 */
export function pagesFromAnswers(): { next(answer: Pick<HttpResponse, 'headers' | 'url'>): URL | undefined } {
  let walk: PageWalk | undefined;
  return {
    next(answer) {
      const url = new URL(answer.url);
      walk ??= new PageWalk({ url, path: answer.url.slice(url.origin.length) }, url.origin);
      return walk.next(answer);
    },
  };
}

/** The `rel="next"` target of a response, resolved against the URL that answered; rel holds space-separated types. */
export function nextLink(header: string | undefined, responseUrl: string | URL): URL | undefined {
  for (const link of parseLinkHeader(header)) {
    const rels = (link.params.rel ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes('next')) continue;
    try {
      return new URL(link.target, responseUrl);
    } catch {
      throw new CliError(`The server's Link header has an invalid next URL: ${link.target.slice(0, 80)}.`, { code: 'pagination_error' });
    }
  }
  return undefined;
}

function withoutFragment(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.toString();
}
