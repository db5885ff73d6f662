import { describe, expect, it } from 'vitest';
import type { HttpRequest, HttpResponse } from '../../src/http/client.js';
import { openSessionWith } from '../../src/library/open-session.js';
import { SchoolError } from '../../src/library/school-error.js';
import type { Profile } from '../../src/state/config-file.js';
import type { TokenSet } from '../../src/state/token-set.js';
import { API, AS, fakeAuthServer, storedTokens } from '../helpers/fake-auth-server.js';
import { fakeDeps } from '../helpers/fake-deps.js';

const NOW = 1_800_000_000;
const profile: Profile = { baseUrl: API, issuer: AS, clientId: 'cid-1', authMethod: 'none', storage: 'keychain' };

function answer(status: number, body: string, url: string, headers: Record<string, string> = {}): HttpResponse {
  const all = { 'content-type': 'application/json', ...headers };
  return { status, statusText: '', headers: all, rawHeaders: Object.entries(all).flat(), body: Buffer.from(body), url, httpVersion: '1.1' };
}

/** The fake authorization server, with an API beside it that records what it was sent and can refuse a token once. */
function fakeSchool() {
  const server = fakeAuthServer();
  const sent: HttpRequest[] = [];
  const api = { refuseNext: false };
  const http = {
    async request(req: HttpRequest): Promise<HttpResponse> {
      const url = new URL(String(req.url));
      if (url.origin !== API || url.pathname.startsWith('/.well-known/')) return server.request(req);
      sent.push(req);
      if (api.refuseNext) {
        api.refuseNext = false;
        return answer(401, '{"error":"invalid_token"}', url.href, { 'www-authenticate': 'Bearer error="invalid_token"' });
      }
      const auth = req.headers?.authorization;
      return answer(200, JSON.stringify({ path: url.pathname, query: url.search, method: req.method, auth: auth ?? null, body: req.body ? Buffer.from(req.body).toString() : null }), url.href, {
        link: '<https://api.school.example/next>; rel="next"',
      });
    },
  };
  return { server, sent, api, http };
}

async function setup(p: { env?: Record<string, string>; tokens?: TokenSet } = {}) {
  const school = fakeSchool();
  const deps = fakeDeps({ http: school.http, now: NOW * 1000, env: p.env });
  if (p.tokens) {
    await deps.state.saveProfile('default', profile);
    await deps.state.saveTokens('default', profile.storage, p.tokens);
  }
  return { ...school, deps };
}

const refreshGrants = (school: { server: ReturnType<typeof fakeAuthServer> }) => school.server.grants.filter((g) => g.grantType === 'refresh_token');

describe('openSession', () => {
  it('rejects with not_logged_in and the login command when the profile has no session', async () => {
    const { deps } = await setup({ env: { SCHOOL_BASE_URL: API } });
    const failure = await openSessionWith(deps).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SchoolError);
    expect(failure).toMatchObject({ code: 'not_logged_in', exitCode: 4, hint: `school login --base-url ${API}` });
  });

  it('resolves the profile as the command line does: the option, then SCHOOL_PROFILE', async () => {
    const { deps } = await setup({ env: { SCHOOL_PROFILE: 'night' } });
    await deps.state.saveProfile('night', profile);
    await deps.state.saveTokens('night', 'keychain', storedTokens(NOW));
    expect((await openSessionWith(deps)).profile).toBe('night');
    await expect(openSessionWith(deps, { profile: 'day' })).rejects.toMatchObject({ code: 'not_logged_in', hint: expect.stringContaining('--profile day') });
    await expect(openSessionWith(deps, { profile: 'bad name' })).rejects.toMatchObject({ code: 'usage', exitCode: 2 });
  });

  it('refuses options of the wrong type with a usage error', async () => {
    const { deps } = await setup();
    await expect(openSessionWith(deps, { profile: 7 } as never)).rejects.toMatchObject({ code: 'usage' });
    await expect(openSessionWith(deps, 'default' as never)).rejects.toMatchObject({ code: 'usage' });
  });

  it('refuses a base URL other than the one the profile is logged in to', async () => {
    const { deps } = await setup({ tokens: storedTokens(NOW) });
    await expect(openSessionWith(deps, { baseUrl: 'https://other.example' })).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining('not https://other.example') });
  });
});

describe('Session.fetch', () => {
  it('sends a path relative to the base URL with the token and returns a Response', async () => {
    const school = await setup({ tokens: storedTokens(NOW) });
    const session = await openSessionWith(school.deps);
    expect(session.baseUrl).toBe(API);
    const res = await session.fetch('/api/courses?page=2', { method: 'POST', body: JSON.stringify({ title: 'Optics' }), headers: { 'content-type': 'application/json' } });
    expect(res).toBeInstanceOf(Response);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${API}/api/courses?page=2`);
    expect(res.headers.get('link')).toContain('rel="next"');
    expect(await res.json()).toEqual({ path: '/api/courses', query: '?page=2', method: 'POST', auth: 'Bearer at-stored-0123456789', body: '{"title":"Optics"}' });
    expect(school.sent[0]?.headers?.['content-type']).toBe('application/json');
  });

  it('refuses another origin and sends nothing there', async () => {
    const school = await setup({ tokens: storedTokens(NOW) });
    const session = await openSessionWith(school.deps);
    await expect(session.fetch('https://evil.example/steal')).rejects.toMatchObject({ code: 'foreign_origin', exitCode: 2 });
    await expect(session.fetch(new URL('https://evil.example/steal'))).rejects.toMatchObject({ code: 'foreign_origin' });
    await expect(session.fetch('//evil.example/steal')).resolves.toMatchObject({ status: 200 });
    expect(school.sent.map((r) => new URL(String(r.url)).origin)).toEqual([API]);
  });

  it('refuses an Authorization header of the caller: the session adds its own', async () => {
    const school = await setup({ tokens: storedTokens(NOW) });
    const session = await openSessionWith(school.deps);
    await expect(session.fetch('/api/courses', { headers: { Authorization: 'Bearer mine' } })).rejects.toMatchObject({ code: 'usage' });
    expect(school.sent).toHaveLength(0);
  });

  it('refreshes once and retries after a 401 invalid_token; other statuses come back as they are', async () => {
    const school = await setup({ tokens: storedTokens(NOW) });
    const session = await openSessionWith(school.deps);
    school.api.refuseNext = true;
    const res = await session.fetch('/api/courses');
    expect(res.status).toBe(200);
    expect(refreshGrants(school)).toHaveLength(1);
    const auths = school.sent.map((r) => r.headers?.authorization);
    expect(auths[0]).toBe('Bearer at-stored-0123456789');
    expect(auths[1]).toMatch(/^Bearer at-\d+-/);
    // The renewed token is kept: the next request uses it without another refresh.
    await session.fetch('/api/courses');
    expect(school.sent[2]?.headers?.authorization).toBe(auths[1]);
    expect(refreshGrants(school)).toHaveLength(1);
  });

  it('sends no token in an anonymous session, and needs a base URL for it', async () => {
    const school = await setup({ tokens: storedTokens(NOW) });
    const session = await openSessionWith(school.deps, { anonymous: true });
    expect(await (await session.fetch('/api/courses')).json()).toMatchObject({ auth: null });
    await expect(session.token()).rejects.toMatchObject({ code: 'not_logged_in' });
    const nowhere = await setup();
    await expect(openSessionWith(nowhere.deps, { anonymous: true })).rejects.toMatchObject({ code: 'usage', message: expect.stringContaining('No base URL') });
  });
});

describe('Session.token and whoami', () => {
  it('refreshes an expired token on open, once, and hands it out', async () => {
    const school = await setup({ tokens: storedTokens(NOW, { expiresAt: NOW - 10 }) });
    const session = await openSessionWith(school.deps);
    const token = await session.token();
    expect(token).toMatch(/^at-\d+-/);
    expect(await session.token()).toBe(token);
    expect(refreshGrants(school)).toHaveLength(1);
  });

  it('refreshes early for minTtl, refuses a minTtl it cannot keep, and checks its argument', async () => {
    const school = await setup({ tokens: storedTokens(NOW, { expiresAt: NOW + 200 }) });
    const session = await openSessionWith(school.deps);
    expect(await session.token({ minTtl: 100 })).toBe('at-stored-0123456789');
    expect(refreshGrants(school)).toHaveLength(0);
    expect(await session.token({ minTtl: 600 })).not.toBe('at-stored-0123456789');
    expect(refreshGrants(school)).toHaveLength(1);
    // The fake server's tokens last an hour.
    await expect(session.token({ minTtl: 7200 })).rejects.toMatchObject({ code: 'ttl_unavailable', exitCode: 4 });
    await expect(session.token({ minTtl: -1 })).rejects.toMatchObject({ code: 'usage' });
  });

  it('uses SCHOOL_TOKEN as it is', async () => {
    const school = await setup({ env: { SCHOOL_TOKEN: 'env-token-0123456789', SCHOOL_BASE_URL: API } });
    const session = await openSessionWith(school.deps);
    expect(await session.token()).toBe('env-token-0123456789');
    await expect(session.token({ minTtl: 60 })).rejects.toMatchObject({ code: 'ttl_unavailable' });
    expect(school.server.asked).toEqual([]);
  });

  it('says who is logged in from the userinfo endpoint', async () => {
    const school = await setup({ tokens: storedTokens(NOW) });
    const session = await openSessionWith(school.deps);
    expect(await session.whoami()).toEqual({ sub: 'u-ada', name: 'Ada Lovelace', email: 'ada@example.edu' });
  });
});
