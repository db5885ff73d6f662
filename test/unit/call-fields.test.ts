import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { targetUrl } from '../../src/http/request-url.js';
import { buildFields, keyPath, parseHeader, toQuery } from '../../src/commands/call/fields.js';
import { listingOf } from '../helpers/described-server.js';

const noInput = () => {
  const s = new PassThrough();
  s.end();
  return s;
};

describe('call request building', () => {
  it('keeps -f values as strings and types -F values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'school-f-'));
    writeFileSync(join(dir, 'desc.txt'), 'from a file\n');
    const fields = await buildFields(['title=42', 'flag=true'], ['count=42', 'ratio=-1.5', 'live=true', 'off=false', 'none=null', `desc=@${join(dir, 'desc.txt')}`, 'word=hello'], noInput());
    expect(fields).toEqual({ title: '42', flag: 'true', count: 42, ratio: -1.5, live: true, off: false, none: null, desc: 'from a file\n', word: 'hello' });
  });

  it('reads @- from stdin', async () => {
    const stdin = new PassThrough();
    stdin.end('piped body');
    expect(await buildFields([], ['text=@-'], stdin)).toEqual({ text: 'piped body' });
  });

  it('nests bracketed keys and appends to arrays', async () => {
    const fields = await buildFields(['course[title]=Algebra', 'course[meta][level]=2', 'tags[]=a', 'tags[]=b'], ['course[seats]=30'], noInput());
    expect(fields).toEqual({ course: { title: 'Algebra', meta: { level: '2' }, seats: 30 }, tags: ['a', 'b'] });
    expect(keyPath('a[b][]')).toEqual(['a', 'b', '']);
  });

  it('refuses malformed fields and headers with usage errors', async () => {
    await expect(buildFields(['novalue'], [], noInput())).rejects.toMatchObject({ exitCode: 2 });
    await expect(buildFields(['a=1', 'a[b]=2'], [], noInput())).resolves.toEqual({ a: { b: '2' } });
    await expect(buildFields(['t[]=1', 't[x]=2'], [], noInput())).rejects.toMatchObject({ exitCode: 2 });
    await expect(buildFields([], ['x=@/nonexistent/file'], noInput())).rejects.toMatchObject({ exitCode: 2 });
    expect(() => parseHeader('NoColon')).toThrow(/Name: value/);
    expect(parseHeader('X-Trace:  abc ')).toEqual(['X-Trace', 'abc']);
  });

  it('puts GET fields in the query string in bracket form', () => {
    expect(toQuery({ q: 'x y', page: 2, f: { level: '1' }, tags: ['a', 'b'] }).toString()).toBe('q=x+y&page=2&f%5Blevel%5D=1&tags%5B%5D=a&tags%5B%5D=b');
  });

  it('joins paths to the base URL, keeping a base path', () => {
    expect(targetUrl('https://s.example', '/api/courses?x=1').toString()).toBe('https://s.example/api/courses?x=1');
    expect(targetUrl('https://s.example/v1', 'courses').toString()).toBe('https://s.example/v1/courses');
    expect(targetUrl('https://s.example', 'https://other.example/x').origin).toBe('https://other.example');
  });
});

describe('openapi operations', () => {
  it('lists each operation with its scopes and whether anonymous works', () => {
    const ops = listingOf({
      paths: {
        '/api/courses': { get: { summary: 'List courses', security: [{}, { oauth2: ['courses:read'] }] }, post: { security: [{ oauth2: ['courses:write'] }] } },
      },
    });
    const row = { operationId: null, area: 'courses', paginated: false, deprecated: false, media_types: [], body_required: false, parameters: [], body_fields: [] };
    expect(ops).toEqual([
      { ...row, command: 'get-api-courses', method: 'GET', path: '/api/courses', scopes: ['courses:read'], anonymous: true, summary: 'List courses' },
      { ...row, command: 'post-api-courses', method: 'POST', path: '/api/courses', scopes: ['courses:write'], anonymous: false, summary: '' },
    ]);
  });
});

describe('call paths cannot leave the base origin', () => {
  it.each(['//evil.example/x', '/\\evil.example/x', '\\\\evil.example/x', '/api/../../x', '/%2e%2e/x'])('%s stays on the base origin', (path) => {
    const url = targetUrl('https://s.example/v1', path);
    expect(url.origin).toBe('https://s.example');
  });
  it('keeps the query string', () => {
    expect(targetUrl('https://s.example', '/api/courses?q=a b&x=1').search).toBe('?q=a%20b&x=1');
  });
});

describe('header values', () => {
  it('refuses line breaks as a usage error', () => {
    expect(() => parseHeader('X-A: one\r\nX-Injected: two')).toThrow(/line breaks/);
  });
});

describe('field names that are Object.prototype keys', () => {
  it('are plain keys: `__proto__[x]=1` never reaches Object.prototype', async () => {
    const fields = await buildFields(['__proto__[polluted]=yes', 'constructor[prototype][bad]=1', 'a[__proto__][b]=2'], [], new PassThrough().end());
    expect(Reflect.get({}, 'polluted')).toBeUndefined();
    expect(Reflect.get({}, 'bad')).toBeUndefined();
    expect(JSON.parse(JSON.stringify(fields))).toEqual(JSON.parse('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"bad":"1"}},"a":{"__proto__":{"b":"2"}}}'));
    expect(toQuery(fields).toString()).toBe('__proto__%5Bpolluted%5D=yes&constructor%5Bprototype%5D%5Bbad%5D=1&a%5B__proto__%5D%5Bb%5D=2');
  });
});
