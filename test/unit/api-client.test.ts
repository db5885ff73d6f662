import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../src/http/client.js';
import { parseLinkHeader } from '../../src/http/link-header.js';
import { buildOperationRequest } from '../../src/api/request-builder.js';
import { underBase } from '../../src/http/request-url.js';
import { ApiClient, MAX_PAGES, nextLink } from '../../src/session/api-client.js';
import type { Session } from '../../src/session/usable-session.js';

const BASE = 'https://api.example/v1';
const NOW = Date.parse('2026-11-26T09:00:00Z');

function answer(status: number, headers: Record<string, string> = {}, url = 'https://api.example/v1/items'): HttpResponse {
  return { status, statusText: '', headers, rawHeaders: [], body: Buffer.from('{}'), url, httpVersion: '1.1' };
}

/** A fake HTTP client that records what was sent and answers from a script. */
function fakeHttp(respond: (req: HttpRequest, n: number) => HttpResponse = () => answer(200)) {
  const sent: HttpRequest[] = [];
  return { sent, http: { request: async (req: HttpRequest) => (sent.push(req), respond(req, sent.length)) } };
}

function session(overrides: Partial<Session> = {}): Session {
  return { profile: 'default', baseUrl: BASE, accessToken: 'at-first-0123', tokenType: 'bearer', source: 'keychain', expiresAt: NOW / 1000 + 3600, obtainedAt: NOW / 1000, ...overrides };
}

const clock = { now: () => NOW };

describe('the API client: where the token goes', () => {
  it('sends the token to the base URL origin only, and refuses another origin before sending', async () => {
    const { sent, http } = fakeHttp();
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: session() });
    expect(client.url('/courses?x=1').href).toBe('https://api.example/v1/courses?x=1');
    expect(client.url('https://api.example/other').href).toBe('https://api.example/other');
    for (const other of ['https://evil.example/steal', 'https://api.example:8443/x', 'https://user@evil.example/x']) {
      expect(() => client.url(other)).toThrow(expect.objectContaining({ code: 'foreign_origin', exitCode: 2 }));
      await expect(client.send({ method: 'GET', url: new URL(other) })).rejects.toMatchObject({ code: 'foreign_origin' });
    }
    expect(sent).toHaveLength(0);
    await client.send({ method: 'GET', url: client.url('/courses') });
    expect(sent[0].headers).toMatchObject({ authorization: 'Bearer at-first-0123' });
  });

  it('keeps an anonymous client on its origin too, unless told it may go anywhere', async () => {
    const { sent, http } = fakeHttp();
    expect(() => new ApiClient({ http, clock }, { baseUrl: BASE }).url('https://evil.example/')).toThrow(/Refusing to send a request of the session/);
    const loose = new ApiClient({ http, clock }, { baseUrl: BASE, anonymousAnyOrigin: true });
    await loose.send({ method: 'GET', url: loose.url('https://elsewhere.example/x') });
    expect(sent[0].headers?.authorization).toBeUndefined();
    // With a token, never: the option is for anonymous requests alone.
    expect(() => new ApiClient({ http, clock }, { baseUrl: BASE, session: session(), anonymousAnyOrigin: true }).url('https://elsewhere.example/x')).toThrow(/Refusing to send the token/);
  });

  it("refuses a caller's own Authorization header, in any case, and sends nothing", async () => {
    const { sent, http } = fakeHttp();
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: session() });
    await expect(client.send({ method: 'GET', url: client.url('/x'), headers: { AuThOrIzAtIoN: 'Bearer mine' } })).rejects.toThrow(/Do not pass an Authorization header/);
    expect(sent).toHaveLength(0);
    // Without a session the header is the caller's own business.
    await new ApiClient({ http, clock }, { baseUrl: BASE }).send({ method: 'GET', url: new URL(`${BASE}/x`), headers: { authorization: 'Bearer mine' } });
    expect(sent[0].headers?.authorization).toBe('Bearer mine');
  });
});

describe('the API client: renewal and the 401 retry', () => {
  it('renews a token that is due before sending, and keeps the renewed session', async () => {
    const { sent, http } = fakeHttp();
    const asked: number[] = [];
    const due = session({ expiresAt: NOW / 1000 + 20, obtainedAt: NOW / 1000 - 3580, renew: async (minTtl) => (asked.push(minTtl), session({ accessToken: 'at-renewed-4567' })) });
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: due });
    await client.send({ method: 'GET', url: client.url('/x') });
    expect(asked).toEqual([0]);
    expect(sent[0].headers?.authorization).toBe('Bearer at-renewed-4567');
    expect(client.session?.accessToken).toBe('at-renewed-4567');
  });

  it('leaves a token that is not due alone', async () => {
    const { http } = fakeHttp();
    let renewed = 0;
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: session({ renew: async () => (renewed++, session()) }) });
    await client.send({ method: 'GET', url: client.url('/x') });
    expect(renewed).toBe(0);
  });

  it('refreshes once on a 401 invalid_token and sends once more; a second 401 is returned as it is', async () => {
    const { sent, http } = fakeHttp(() => answer(401, { 'www-authenticate': 'Bearer error="invalid_token"' }));
    let refreshes = 0;
    const first = session({ refresh: async () => (refreshes++, session({ accessToken: `at-refreshed-${refreshes}00000` })) });
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: first });
    const res = await client.send({ method: 'GET', url: client.url('/x') });
    expect(res.status).toBe(401);
    expect(refreshes).toBe(1);
    expect(sent.map((r) => r.headers?.authorization)).toEqual(['Bearer at-first-0123', 'Bearer at-refreshed-100000']);
  });

  it('does not refresh for a 401 a refresh cannot cure, nor past its limit', async () => {
    const { sent, http } = fakeHttp((req) => answer(401, { 'www-authenticate': req.url.toString().endsWith('/scope') ? 'Bearer error="invalid_request"' : 'Bearer error="invalid_token"' }));
    let refreshes = 0;
    const renewing = (): Session => session({ refresh: async () => (refreshes++, renewing()) });
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: renewing(), refreshLimit: 1 });
    await client.send({ method: 'GET', url: client.url('/scope') });
    expect(refreshes).toBe(0);
    await client.send({ method: 'GET', url: client.url('/a') });
    await client.send({ method: 'GET', url: client.url('/b') });
    expect(refreshes).toBe(1);
    expect(sent).toHaveLength(4);
  });
});

describe('the API client: pagination', () => {
  it('parses RFC 8288 Link headers: commas inside <> and quotes kept, malformed values skipped', () => {
    const header = '<https://api.example/items?page=2&sort=a,b>; rel="next", <https://api.example/items?page=9>; rel=last; title="x, y"';
    expect(parseLinkHeader(header)).toEqual([
      { target: 'https://api.example/items?page=2&sort=a,b', params: { rel: 'next' } },
      { target: 'https://api.example/items?page=9', params: { rel: 'last', title: 'x, y' } },
    ]);
    expect(parseLinkHeader('garbage, <https://a.example/2>; rel="next"')).toEqual([{ target: 'https://a.example/2', params: { rel: 'next' } }]);
    expect(parseLinkHeader('<https://a.example/2; rel="next"')).toEqual([]);
  });

  it('finds rel=next among several relation types, in any case, and resolves a relative target', () => {
    expect(nextLink('</items?page=3>; REL="prev next"', 'https://api.example/v1/items?page=2')?.href).toBe('https://api.example/items?page=3');
    expect(nextLink('<items?page=3>; rel=next', 'https://api.example/v1/list')?.href).toBe('https://api.example/v1/items?page=3');
    expect(nextLink('<https://api.example/a>; rel="prev", <https://api.example/z>; rel="last"', 'https://api.example/')).toBeUndefined();
    expect(nextLink(undefined, 'https://api.example/')).toBeUndefined();
  });

  const walkFrom = (path = '/items?page=1') => new ApiClient({ http: fakeHttp().http, clock }, { baseUrl: BASE, session: session() }).pages(new URL(`${BASE}${path}`));
  const linked = (target: string, url = `${BASE}/items`) => ({ headers: { link: `<${target}>; rel="next"` }, url });

  it('follows next links on the same origin and ends where there is none', () => {
    const walk = walkFrom();
    expect(walk.next(linked('/v1/items?page=2'))?.href).toBe('https://api.example/v1/items?page=2');
    expect(walk.page).toBe(2);
    expect(walk.next({ headers: {}, url: `${BASE}/items?page=2` })).toBeUndefined();
  });

  it('checks the origin on every page, not only the first', () => {
    const walk = walkFrom();
    walk.next(linked('/v1/items?page=2'));
    walk.next(linked('/v1/items?page=3'));
    expect(() => walk.next(linked('https://evil.example/v1/items?page=4'))).toThrow(
      expect.objectContaining({ code: 'pagination_error', message: expect.stringMatching(/^page 4: the next link points to https:\/\/evil\.example, another origin/) }),
    );
  });

  it('ends with an error on a page seen twice, the first page included', () => {
    const back = walkFrom();
    back.next(linked('/v1/items?page=2'));
    expect(() => back.next(linked('/v1/items?page=1#again'))).toThrow(/page 3: the next link repeats \/v1\/items\?page=1, already fetched/);
    const self = walkFrom();
    expect(() => self.next(linked('/v1/items?page=1'))).toThrow(expect.objectContaining({ code: 'pagination_error' }));
  });

  it('stops a listing that never ends', () => {
    const walk = walkFrom();
    for (let n = 2; n <= MAX_PAGES; n++) walk.next(linked(`/v1/items?page=${n}`));
    expect(() => walk.next(linked(`/v1/items?page=${MAX_PAGES + 1}`))).toThrow(/does not end/);
  });
});

describe('request URLs: an operation path is sent as built', () => {
  it('puts a built path under the base path and sends it as it is', async () => {
    const built = buildOperationRequest(
      {
        method: 'GET',
        path: '/api/courses/{id}',
        parameters: [
          { name: 'id', in: 'path', style: 'simple', explode: false },
          { name: 'q', in: 'query', style: 'form', explode: true },
        ],
        media: [],
      },
      { params: { 'path:id': 'a/b', 'query:q': 'x y' } },
      { baseUrl: BASE },
    );
    const target = underBase(BASE, built.path);
    expect(target.path).toBe('/v1/api/courses/a%2Fb?q=x%20y');
    expect(target.url.origin).toBe('https://api.example');
    const { sent, http } = fakeHttp();
    const client = new ApiClient({ http, clock }, { baseUrl: BASE, session: session() });
    await client.send({ method: 'GET', ...target });
    expect(sent[0].path).toBe('/v1/api/courses/a%2Fb?q=x%20y');
  });

  it('refuses what is not a path of the API', () => {
    for (const bad of ['api/x', '//evil.example/x', '/a#b', '/a b']) expect(() => underBase(BASE, bad)).toThrow(/Not a path of the API/);
  });
});
