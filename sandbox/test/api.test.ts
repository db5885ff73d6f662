import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { startSandbox, type Sandbox } from '../src/index.js';
import { discover, eventsOf, insecure, obtainTokens, register, type RegisteredClient } from './testkit.js';

let sb: Sandbox;
let as: oauth.AuthorizationServer;
let reg: RegisteredClient;
let readToken: string; // courses:read students:read
let writeToken: string; // courses:write
let profileToken: string; // openid profile email

beforeAll(async () => {
  sb = await startSandbox({ quiet: true });
  as = await discover(sb.issuer);
  reg = await register(as);
  readToken = (await obtainTokens(as, reg, 'openid courses:read students:read')).access_token;
  writeToken = (await obtainTokens(as, reg, 'courses:write')).access_token;
  profileToken = (await obtainTokens(as, reg, 'openid profile email', { user: 'alan', password: 'turing' })).access_token;
});
afterAll(async () => {
  await sb?.close();
});

function call(path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  return fetch(`${sb.baseUrl}${path}`, { ...init, headers });
}

function challenge(res: Response) {
  return res.headers.get('www-authenticate') ?? '';
}

const prmUrl = () => `${sb.baseUrl}/.well-known/oauth-protected-resource`;

describe('anonymous requests', () => {
  it('are served, never challenged', async () => {
    const res = await call('/api/courses');
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const body = await res.json();
    expect(body.anonymous).toBe(true);
    expect(body.courses.length).toBeGreaterThan(0);
    expect(body.courses.every((c: { visibility: string }) => c.visibility === 'public')).toBe(true);
    const students = await (await call('/api/students')).json();
    expect(students).toEqual({ anonymous: true, students: [] });
    expect(eventsOf(sb, 'api').at(-1)).toMatchObject({ method: 'GET', path: '/api/students', status: 200, authenticated: false, authorization_header: false });
  });

  it('cannot write: 403 forbidden without a WWW-Authenticate challenge', async () => {
    const res = await call('/api/courses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect((await res.json()).error).toBe('forbidden');
  });
});

describe('bearer tokens', () => {
  it('a valid token with the scope gets the full data', async () => {
    const res = await call('/api/courses', { token: readToken });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.anonymous).toBe(false);
    expect(body.courses.some((c: { visibility: string }) => c.visibility === 'private')).toBe(true);
    expect((await call('/api/courses/c-201', { token: readToken })).status).toBe(200);
    expect((await call('/api/courses/c-201')).status).toBe(404);
    expect(eventsOf(sb, 'api').at(-2)).toMatchObject({ path: '/api/courses/c-201', authenticated: true, authorization_header: true, status: 200 });
  });

  it('an invalid token gets 401 invalid_token pointing at the protected resource metadata', async () => {
    const res = await call('/api/courses', { token: 'not-a-real-token' });
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.error).toBe('invalid_token');
    expect(typeof body.error_description).toBe('string');
    const h = challenge(res);
    expect(h).toMatch(/^Bearer /);
    expect(h).toContain('error="invalid_token"');
    expect(h).toContain('error_description="');
    expect(h).toContain(`resource_metadata="${prmUrl()}"`);
    expect(eventsOf(sb, 'api').at(-1)).toMatchObject({ status: 401, authenticated: false, authorization_header: true });
  });

  it('a non-Bearer Authorization header is a malformed token, not anonymous', async () => {
    const res = await call('/api/echo', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status).toBe(401);
    expect(challenge(res)).toContain('error="invalid_token"');
  });

  it('a token lacking the scope gets 403 insufficient_scope naming the scope', async () => {
    const res = await call('/api/courses', { method: 'POST', token: readToken, headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'insufficient_scope', scope: 'courses:write' });
    const h = challenge(res);
    expect(h).toContain('error="insufficient_scope"');
    expect(h).toContain('scope="courses:write"');
    expect(h).toContain(`resource_metadata="${prmUrl()}"`);
    const read = await call('/api/students', { token: writeToken });
    expect(read.status).toBe(403);
    expect(challenge(read)).toContain('scope="students:read"');
  });

  it('writes with the right scope: 201 and the created course echoed back', async () => {
    const res = await call('/api/courses', {
      method: 'POST',
      token: writeToken,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Difference Engines', visibility: 'public', seats: 12 }),
    });
    expect(res.status).toBe(201);
    const course = await res.json();
    expect(course).toMatchObject({ title: 'Difference Engines', visibility: 'public', seats: 12 });
    expect(course.id).toMatch(/^c-/);
    expect(res.headers.get('location')).toBe(`${sb.baseUrl}/api/courses/${course.id}`);
    const bad = await call('/api/courses', { method: 'POST', token: writeToken, headers: { 'content-type': 'application/json' }, body: '{"seats":1}' });
    expect(bad.status).toBe(400);
    const badSeats = await call('/api/courses', { method: 'POST', token: writeToken, headers: { 'content-type': 'application/json' }, body: '{"title":"Looms","seats":"thirty"}' });
    expect(badSeats.status).toBe(400);
  });

  it('describes seats in the course schemas (the field `call -F seats=30` fills)', async () => {
    const doc = await (await fetch(`${sb.baseUrl}/openapi.json`)).json();
    expect(doc.components.schemas.NewCourse.properties.seats).toMatchObject({ type: 'integer', minimum: 1 });
    expect(doc.components.schemas.Course.properties.seats).toMatchObject({ type: 'integer' });
  });

  it('an expired token is invalid_token', async () => {
    const short = await startSandbox({ quiet: true, accessTokenTtl: 1 });
    try {
      const sas = await discover(short.issuer);
      const r = await register(sas);
      const t = await obtainTokens(sas, r, 'courses:read');
      expect(t.expires_in).toBeLessThanOrEqual(1);
      // The sandbox runs in this process: its clock moved past the token's lifetime.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: Date.now() + 2100 });
      const res = await fetch(`${short.baseUrl}/api/courses`, { headers: { authorization: `Bearer ${t.access_token}` } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${short.baseUrl}/.well-known/oauth-protected-resource"`);
    } finally {
      vi.useRealTimers();
      await short.close();
    }
  });
});

describe('/api/echo', () => {
  it('reflects the request, without the Authorization value', async () => {
    const res = await call('/api/echo?a=1&b=2&b=3', {
      method: 'PATCH',
      token: readToken,
      headers: { 'content-type': 'application/json', 'X-Custom': 'Yes' },
      body: JSON.stringify({ hello: 'world' }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      method: 'PATCH',
      path: '/api/echo',
      query: { a: '1', b: ['2', '3'] },
      authorization: 'present',
      body: { hello: 'world' },
      authenticated: true,
    });
    expect(body.headers['x-custom']).toBe('Yes');
    expect(body.headers.authorization).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain(readToken);
    expect(body.scopes.sort()).toEqual(['courses:read', 'openid', 'students:read']);
  });

  it('serves anonymous callers and text bodies', async () => {
    const res = await call('/api/echo', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'plain text' });
    const body = await res.json();
    expect(body).toMatchObject({ method: 'POST', authorization: 'absent', body: 'plain text', authenticated: false, scopes: [] });
    expect((await call('/api/echo', { method: 'DELETE' })).status).toBe(200);
    expect((await call('/api/echo', { method: 'PUT' })).status).toBe(200);
  });
});

describe('pagination and testing routes', () => {
  it('pages /api/lessons with RFC 8288 Link headers, and marks it paginated in /openapi.json', async () => {
    const first = await call('/api/lessons?per_page=5', { token: readToken });
    expect((await first.json()).lessons).toHaveLength(5);
    expect(first.headers.get('link')).toBe(
      `<${sb.baseUrl}/api/lessons?page=1&per_page=5>; rel="first", <${sb.baseUrl}/api/lessons?page=2&per_page=5>; rel="last", <${sb.baseUrl}/api/lessons?page=2&per_page=5>; rel="next"`,
    );
    const last = await call('/api/lessons?page=2&per_page=5');
    expect(await last.json()).toMatchObject({ page: 2, lessons: [{ id: 'l-6' }, { id: 'l-7' }, { id: 'l-8' }] });
    expect(last.headers.get('link')).not.toContain('rel="next"');
    const doc = await (await call('/openapi.json')).json();
    expect(doc.paths['/api/lessons'].get['x-paginated']).toBe(true);
  });

  it('fails /api/testing/flaky the asked number of times per key, then answers 200', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const res = await call('/api/testing/flaky?key=sandbox-a&times=2&status=429&retry_after=7');
      statuses.push([res.status, res.headers.get('retry-after')]);
    }
    expect(statuses).toEqual([
      [429, '7'],
      [429, '7'],
      [200, null],
    ]);
    expect((await call('/api/testing/flaky?key=sandbox-b&times=1')).status).toBe(503);
  });

  it('answers /api/testing/page as asked, with a next link when given', async () => {
    const res = await call('/api/testing/page?status=404&type=text/plain&body=gone&next=self');
    expect([res.status, res.headers.get('content-type'), await res.text()]).toEqual([404, 'text/plain', 'gone']);
    expect(res.headers.get('link')).toBe(`<${sb.baseUrl}/api/testing/page?status=404&type=text/plain&body=gone&next=self>; rel="next"`);
  });
});

describe('userinfo', () => {
  it('returns claims according to the granted scopes', async () => {
    const response = await oauth.userInfoRequest(as, reg.client, profileToken, insecure);
    const claims = await oauth.processUserInfoResponse(as, reg.client, oauth.skipSubjectCheck, response);
    expect(claims).toMatchObject({ sub: sb.users[1]!.sub, name: 'Alan Turing', email: 'alan@example.edu' });
    const narrow = await (await fetch(as.userinfo_endpoint!, { headers: { authorization: `Bearer ${readToken}` } })).json();
    expect(narrow).toEqual({ sub: sb.users[0]!.sub });
    expect(eventsOf(sb, 'userinfo').at(-1)).toMatchObject({ status: 200 });
  });

  it('refuses a bad token with 401 invalid_token and a challenge, and a token without openid with 403', async () => {
    const bad = await fetch(as.userinfo_endpoint!, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(401);
    expect((await bad.json()).error).toBe('invalid_token');
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const none = await fetch(as.userinfo_endpoint!);
    expect(none.status).toBe(401);
    const noOpenid = await fetch(as.userinfo_endpoint!, { headers: { authorization: `Bearer ${writeToken}` } });
    expect(noOpenid.status).toBe(403);
    expect(
      eventsOf(sb, 'userinfo')
        .slice(-3)
        .map((e) => e.status),
    ).toEqual([401, 401, 403]);
  });
});
