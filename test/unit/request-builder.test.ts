import { describe, expect, it } from 'vitest';
import { FilePart, buildOperationRequest, chooseMedia } from '../../src/api/request-builder.js';
import { formBody } from '../../src/api/request/form-body.js';
import { cookiePairs, headerText } from '../../src/api/request/header-param.js';
import { multipartBody } from '../../src/api/request/multipart-body.js';
import { pathParamText } from '../../src/api/request/path-param.js';
import { queryPairs } from '../../src/api/request/query-param.js';
import type { ParamShape, ParamStyle, RequestShape } from '../../src/api/request-shape.js';
import { mediaKind } from '../../src/api/request-shape.js';

const BASE = 'https://api.example/v1';
const param = (name: string, where: ParamShape['in'], style: ParamStyle, explode: boolean, extra: Partial<ParamShape> = {}): ParamShape => ({ name, in: where, style, explode, ...extra });
const query = (name: string, value: unknown, style: ParamStyle, explode: boolean, allowReserved = false) =>
  queryPairs(name, value, { style, explode, allowReserved })
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

// The examples of OpenAPI 3.1's style table (4.8.12.4): color = "blue", ["blue","black","brown"], {R:100,G:200,B:150}.
const ARRAY = ['blue', 'black', 'brown'];
const OBJECT = { R: 100, G: 200, B: 150 };

describe('path parameters (simple, label, matrix)', () => {
  const text = (style: ParamStyle, explode: boolean, value: unknown) => pathParamText(param('color', 'path', style, explode), value);

  it('writes the style table of the specification', () => {
    expect(text('simple', false, 'blue')).toBe('blue');
    expect(text('simple', false, ARRAY)).toBe('blue,black,brown');
    expect(text('simple', true, ARRAY)).toBe('blue,black,brown');
    expect(text('simple', false, OBJECT)).toBe('R,100,G,200,B,150');
    expect(text('simple', true, OBJECT)).toBe('R=100,G=200,B=150');
    expect(text('label', false, 'blue')).toBe('.blue');
    expect(text('label', false, ARRAY)).toBe('.blue,black,brown');
    expect(text('label', true, ARRAY)).toBe('.blue.black.brown');
    expect(text('label', false, OBJECT)).toBe('.R,100,G,200,B,150');
    expect(text('label', true, OBJECT)).toBe('.R=100.G=200.B=150');
    expect(text('matrix', false, 'blue')).toBe(';color=blue');
    expect(text('matrix', false, ARRAY)).toBe(';color=blue,black,brown');
    expect(text('matrix', true, ARRAY)).toBe(';color=blue;color=black;color=brown');
    expect(text('matrix', false, OBJECT)).toBe(';color=R,100,G,200,B,150');
    expect(text('matrix', true, OBJECT)).toBe(';R=100;G=200;B=150');
    expect(text('matrix', false, '')).toBe(';color');
  });

  it('keeps a value inside its segment, and x-multi-segment keeps its slashes', () => {
    expect(text('simple', false, 'a/b?c#d e%2F')).toBe('a%2Fb%3Fc%23d%20e%252F');
    expect(text('simple', false, '..;x')).toBe('..%3Bx');
    expect(text('matrix', false, 'a;b')).toBe(';color=a%3Bb');
    expect(pathParamText(param('ref', 'path', 'simple', false, { multiSegment: true }), 'heads/main branch')).toBe('heads/main%20branch');
    expect(pathParamText(param('f', 'path', 'simple', false, { contentType: 'application/json' }), { a: 1 })).toBe('%7B%22a%22%3A1%7D');
  });
});

describe('query parameters (form, spaceDelimited, pipeDelimited, deepObject, allowReserved)', () => {
  it('writes the style table of the specification', () => {
    expect(query('color', 'blue', 'form', true)).toBe('color=blue');
    expect(query('color', ARRAY, 'form', true)).toBe('color=blue&color=black&color=brown');
    expect(query('color', ARRAY, 'form', false)).toBe('color=blue,black,brown');
    expect(query('color', OBJECT, 'form', true)).toBe('R=100&G=200&B=150');
    expect(query('color', OBJECT, 'form', false)).toBe('color=R,100,G,200,B,150');
    expect(query('color', ARRAY, 'spaceDelimited', false)).toBe('color=blue%20black%20brown');
    expect(query('color', ARRAY, 'pipeDelimited', false)).toBe('color=blue%7Cblack%7Cbrown');
    expect(query('color', ARRAY, 'pipeDelimited', true)).toBe('color=blue&color=black&color=brown');
    expect(query('color', OBJECT, 'deepObject', true)).toBe('color[R]=100&color[G]=200&color[B]=150');
  });

  it("writes Stripe's nested brackets, Asana's commas, and a value's commas apart from the delimiter", () => {
    expect(query('created', { gt: 1700000000, lte: 1800000000 }, 'deepObject', true)).toBe('created[gt]=1700000000&created[lte]=1800000000');
    expect(query('expand', ['customer', 'invoice'], 'deepObject', true)).toBe('expand[0]=customer&expand[1]=invoice');
    expect(query('filter', { a: { b: 'x y' } }, 'deepObject', true)).toBe('filter[a][b]=x%20y');
    expect(query('opt_fields', ['name', 'notes'], 'form', false)).toBe('opt_fields=name,notes');
    expect(query('q', ['a,b', 'c'], 'form', false)).toBe('q=a%2Cb,c');
  });

  it('keeps reserved characters with allowReserved, never those that would change the query', () => {
    expect(query('path', 'a/b:c@d,e', 'form', true, true)).toBe('path=a/b:c@d,e');
    expect(query('path', 'a/b:c', 'form', true)).toBe('path=a%2Fb%3Ac');
    expect(query('path', 'a&b=c#d+e', 'form', true, true)).toBe('path=a%26b%3Dc%23d%2Be');
  });

  it('writes a content parameter as its JSON', () => {
    expect(queryPairs('where', { a: [1] }, { style: 'form', explode: true, json: true })).toEqual([['where', '%7B%22a%22%3A%5B1%5D%7D']]);
  });
});

describe('header and cookie parameters', () => {
  it('writes a header simple, and refuses a line break', () => {
    expect(headerText(param('X-Color', 'header', 'simple', false), ARRAY)).toBe('blue,black,brown');
    expect(headerText(param('X-Color', 'header', 'simple', false), OBJECT)).toBe('R,100,G,200,B,150');
    expect(headerText(param('X-Color', 'header', 'simple', true), OBJECT)).toBe('R=100,G=200,B=150');
    expect(() => headerText(param('X-Id', 'header', 'simple', false), 'a\r\nSet-Cookie: x')).toThrow(/line break/);
  });

  it('writes a cookie form, values encoded', () => {
    expect(cookiePairs(param('color', 'cookie', 'form', false), ARRAY)).toEqual(['color=blue,black,brown']);
    expect(cookiePairs(param('color', 'cookie', 'form', true), ARRAY)).toEqual(['color=blue', 'color=black', 'color=brown']);
    expect(cookiePairs(param('s', 'cookie', 'form', true), 'a; b')).toEqual(['s=a%3B%20b']);
  });
});

describe('bodies by media type', () => {
  it('writes a form body: arrays repeated by default, deepObject where the encoding asks', () => {
    expect(formBody({ name: 'Ada L', tags: ['a', 'b'], n: 2, ok: true })).toBe('name=Ada%20L&tags=a&tags=b&n=2&ok=true');
    expect(formBody({ metadata: { plan: 'pro' }, expand: ['customer'] }, { metadata: { style: 'deepObject', explode: true }, expand: { style: 'deepObject', explode: true } })).toBe(
      'metadata[plan]=pro&expand[0]=customer',
    );
    expect(formBody({ tags: ['a', 'b'] }, { tags: { explode: false } })).toBe('tags=a,b');
    expect(formBody({ meta: { a: 1 } }, { meta: { contentType: 'application/json' } })).toBe('meta=%7B%22a%22%3A1%7D');
    expect(() => formBody('text')).toThrow(/made of fields/);
  });

  it('writes a multipart body: a part per field and per item, a file with its name, the same bytes for the same fields', () => {
    const fields = { title: 'Notes', tags: ['a', 'b'], meta: { k: 1 }, file: new FilePart(Buffer.from([0, 1, 2, 255]), 'x"y.bin') };
    const { body, boundary } = multipartBody(fields, { file: { contentType: 'image/png' } });
    const text = body.toString('latin1');
    expect(text.split(`--${boundary}`)).toEqual([
      '',
      '\r\nContent-Disposition: form-data; name="title"\r\n\r\nNotes\r\n',
      '\r\nContent-Disposition: form-data; name="tags"\r\n\r\na\r\n',
      '\r\nContent-Disposition: form-data; name="tags"\r\n\r\nb\r\n',
      '\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n{"k":1}\r\n',
      '\r\nContent-Disposition: form-data; name="file"; filename="x%22y.bin"\r\nContent-Type: image/png\r\n\r\n\u0000\u0001\u0002\u00ff\r\n',
      '--\r\n',
    ]);
    expect(multipartBody(fields, { file: { contentType: 'image/png' } }).body.equals(body)).toBe(true);
    expect(multipartBody({ ...fields, title: 'Other' }).boundary).not.toBe(boundary);
  });

  it('writes a multipart field with a style of its own as a form writes it, a part per name', () => {
    const { body, boundary } = multipartBody({ link: { create: true, metadata: { k: 'v w' } } }, { link: { style: 'deepObject', explode: true } });
    expect(body.toString().split(`--${boundary}`).slice(1, -1)).toEqual([
      '\r\nContent-Disposition: form-data; name="link[create]"\r\n\r\ntrue\r\n',
      '\r\nContent-Disposition: form-data; name="link[metadata][k]"\r\n\r\nv w\r\n',
    ]);
  });

  it('tells the kinds of media types apart', () => {
    expect(['application/json', 'application/merge-patch+json', 'application/vnd.github+json; charset=utf-8', '*/*'].map(mediaKind)).toEqual(['json', 'json', 'json', 'json']);
    expect(['application/x-www-form-urlencoded', 'multipart/form-data', 'application/octet-stream', 'application/jsonl', 'text/plain'].map(mediaKind)).toEqual([
      'form',
      'multipart',
      'raw',
      'raw',
      'raw',
    ]);
  });
});

const LESSON: RequestShape = {
  method: 'DELETE',
  path: '/api/courses/{courseId}/lessons/{lessonId}',
  parameters: [param('courseId', 'path', 'simple', false), param('lessonId', 'path', 'simple', false), param('filter', 'query', 'deepObject', true), param('X-Trace', 'header', 'simple', false)],
  media: [],
};

describe('the builder', () => {
  it('fills the path in template order whatever the order of the parameters, then the query and headers', () => {
    const built = buildOperationRequest(LESSON, { params: { 'path:lessonId': 'l 1', 'path:courseId': 'c1', 'query:filter': { status: 'open' }, 'header:X-Trace': 't' } }, { baseUrl: BASE });
    expect(built).toEqual({ method: 'DELETE', path: '/api/courses/c1/lessons/l%201?filter[status]=open', headers: { accept: 'application/json, */*;q=0.5', 'x-trace': 't' } });
  });

  it('never sets a header the client sets or a credential, whoever asks', () => {
    for (const name of ['Authorization', 'cookie', 'Content-Type', 'DPoP', 'bad header']) {
      const shape: RequestShape = { method: 'GET', path: '/x', parameters: [param(name, 'header', 'simple', false)], media: [] };
      expect(() => buildOperationRequest(shape, { params: { [`header:${name}`]: 'v' } }, { baseUrl: BASE })).toThrow(/is set by the client/);
    }
  });

  it("refuses a path segment that is empty, '.' or '..', naming the argument", () => {
    const argName = (p: ParamShape) => `<${p.name}>`;
    for (const bad of ['', '.', '..']) {
      expect(() => buildOperationRequest(LESSON, { params: { 'path:courseId': 'c1', 'path:lessonId': bad } }, { baseUrl: BASE, argName })).toThrow(
        expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/^<lessonId> cannot be (empty|'\.'|'\.\.'): /) }),
      );
    }
    // Dots inside a value, or encoded ones, are no dot-segment.
    const ok = buildOperationRequest(LESSON, { params: { 'path:courseId': '...', 'path:lessonId': '%2E%2E' } }, { baseUrl: BASE });
    expect(ok.path).toBe('/api/courses/.../lessons/%252E%252E');
    // Two parameters sharing a segment: what they make together is checked.
    const shared: RequestShape = { method: 'GET', path: '/f/{a}{b}', parameters: [param('a', 'path', 'simple', false), param('b', 'path', 'simple', false)], media: [] };
    expect(() => buildOperationRequest(shared, { params: { 'path:a': '.', 'path:b': '.' } }, { baseUrl: BASE })).toThrow(/path segment '\.\.'/);
    expect(buildOperationRequest(shared, { params: { 'path:a': 'x', 'path:b': '.' } }, { baseUrl: BASE }).path).toBe('/f/x.');
  });

  it("refuses a description's path that holds a '.' or '..' segment of its own", () => {
    const climbing: RequestShape = { method: 'DELETE', path: '/api/courses/{id}/..', parameters: [param('id', 'path', 'simple', false)], media: [] };
    expect(() => buildOperationRequest(climbing, { params: { 'path:id': 'c1' } }, { baseUrl: BASE })).toThrow("The description's path /api/courses/{id}/.. holds a '..' segment");
    // Encoded dots are dots to a server that normalizes URLs (WHATWG, RFC 3986 §6.2.2.2): they climb too.
    for (const path of ['/api/courses/{id}/%2e%2e', '/api/courses/%2E./{id}', '/api/courses/{id}/%2e']) {
      const encoded: RequestShape = { method: 'DELETE', path, parameters: [param('id', 'path', 'simple', false)], media: [] };
      expect(() => buildOperationRequest(encoded, { params: { 'path:id': 'c1' } }, { baseUrl: BASE })).toThrow(/^The description's path .* holds a '\.\.?' segment: not sent\.$/);
    }
    // An encoded dot of the description's and a value's dot make '..' together.
    const joined: RequestShape = { method: 'DELETE', path: '/api/f/%2e{a}', parameters: [param('a', 'path', 'simple', false)], media: [] };
    expect(() => buildOperationRequest(joined, { params: { 'path:a': '.' } }, { baseUrl: BASE })).toThrow(/path segment '\.\.'/);
    expect(buildOperationRequest(joined, { params: { 'path:a': 'x' } }, { baseUrl: BASE }).path).toBe('/api/f/%2ex');
    // `..;` is `..` to servers that drop a segment's parameters (Tomcat, Jetty).
    const semi: RequestShape = { method: 'DELETE', path: '/api/courses/..;x/all', parameters: [], media: [] };
    expect(() => buildOperationRequest(semi, { params: {} }, { baseUrl: BASE })).toThrow("holds a '..' segment: not sent.");
    const trailing: RequestShape = { method: 'GET', path: '/api/courses/', parameters: [], media: [] };
    expect(buildOperationRequest(trailing, { params: {} }, { baseUrl: BASE }).path).toBe('/api/courses/');
  });

  it("sends the description's own path text as a URL carries it: UTF-8 encoded, a backslash never a separator", () => {
    const shape = (path: string): RequestShape => ({ method: 'DELETE', path, parameters: [param('id', 'path', 'simple', false)], media: [] });
    const sent = (path: string) => buildOperationRequest(shape(path), { params: { 'path:id': 'é' } }, { baseUrl: BASE }).path;
    // As WHATWG's URL parser (and so a reference client over fetch) sends them.
    expect(sent('/café/{id}')).toBe('/caf%C3%A9/%C3%A9');
    expect(sent('/a b/{id}/{other}')).toBe('/a%20b/%C3%A9/%7Bother%7D');
    expect(sent('/q/{id}?a=b c&x=%0d')).toBe('/q/%C3%A9?a=b%20c&x=%0d');
    // A line break is never sent raw; a backslash, which servers that normalize read as `/`, cannot climb.
    expect(sent('/h\r\nX-Evil: 1/{id}')).toBe('/h%0D%0AX-Evil:%201/%C3%A9');
    expect(sent('/back\\..\\{id}')).toBe('/back%5C..%5C%C3%A9');
    // What the description already encoded stays as it is.
    expect(sent('/x%20y/{id}')).toBe('/x%20y/%C3%A9');
  });

  it("writes a stray percent sign of the description's path as one, and keeps what RFC 3986 allows in a segment", () => {
    // A space or non-ASCII encoded, an escape kept, every character RFC 3986 allows in a segment as it is.
    const accented: RequestShape = { method: 'GET', path: "/café/a b/{id}/x%2Fy/100%/ok:@!$'()*+,;=-._~", parameters: [param('id', 'path', 'simple', false)], media: [] };
    expect(buildOperationRequest(accented, { params: { 'path:id': 'é' } }, { baseUrl: BASE }).path).toBe("/caf%C3%A9/a%20b/%C3%A9/x%2Fy/100%25/ok:@!$'()*+,;=-._~");
  });

  it("sends a path key's own query first, and never its fragment", () => {
    const shape: RequestShape = { method: 'PUT', path: '/t/{id}/schema?kind=all#update', parameters: [param('id', 'path', 'simple', false), param('q', 'query', 'form', true)], media: [] };
    expect(buildOperationRequest(shape, { params: { 'path:id': 'x', 'query:q': 'y' } }, { baseUrl: BASE }).path).toBe('/t/x/schema?kind=all&q=y');
  });

  it("fills the path parameters a path key's own query names (icons8's `?platform={platform}`), encoded", () => {
    const shape: RequestShape = {
      method: 'GET',
      path: '/categories?platform={platform}&file={name}',
      parameters: [param('platform', 'path', 'simple', false), param('name', 'path', 'simple', false)],
      media: [],
    };
    const built = buildOperationRequest(shape, { params: { 'path:platform': 'ios7', 'path:name': 'a b&c=d/..' } }, { baseUrl: BASE });
    expect(built.path).toBe('/categories?platform=ios7&file=a%20b%26c%3Dd%2F..');
    expect(() => buildOperationRequest(shape, { params: { 'path:platform': 'ios7' } }, { baseUrl: BASE })).toThrow('Missing the path parameter name');
    // A pair naming a query parameter is that parameter's, written once (and left out when it has no value).
    const search: RequestShape = { method: 'GET', path: '/search/articles?query={query}&v=2', parameters: [param('query', 'query', 'form', true)], media: [] };
    expect(buildOperationRequest(search, { params: { 'query:query': 'a&b' } }, { baseUrl: BASE }).path).toBe('/search/articles?v=2&query=a%26b');
    expect(buildOperationRequest(search, { params: {} }, { baseUrl: BASE }).path).toBe('/search/articles?v=2');
    // A fixed pair of a parameter given a value gives way to it; kept when none is given.
    const view: RequestShape = { method: 'GET', path: '/build/{file}?view=fileinfo', parameters: [param('file', 'path', 'simple', false), param('view', 'query', 'form', true)], media: [] };
    expect(buildOperationRequest(view, { params: { 'path:file': 'f', 'query:view': ['fileinfo_ext'] } }, { baseUrl: BASE }).path).toBe('/build/f?view=fileinfo_ext');
    expect(buildOperationRequest(view, { params: { 'path:file': 'f' } }, { baseUrl: BASE }).path).toBe('/build/f?view=fileinfo');
  });

  it('lets x-multi-segment hold slashes, none of its segments empty or dots', () => {
    const ref: RequestShape = {
      method: 'GET',
      path: '/repos/{owner}/git/ref/{ref}',
      parameters: [param('owner', 'path', 'simple', false), param('ref', 'path', 'simple', false, { multiSegment: true })],
      media: [],
    };
    expect(buildOperationRequest(ref, { params: { 'path:owner': 'o', 'path:ref': 'heads/feature/x' } }, { baseUrl: BASE }).path).toBe('/repos/o/git/ref/heads/feature/x');
    for (const bad of ['heads//x', 'heads/../x', 'heads/.', '/heads']) {
      expect(() => buildOperationRequest(ref, { params: { 'path:owner': 'o', 'path:ref': bad } }, { baseUrl: BASE })).toThrow(/cannot be a value making the path segment/);
    }
  });

  const UPLOAD: RequestShape = {
    method: 'PATCH',
    path: '/items',
    parameters: [],
    media: [
      { type: 'application/merge-patch+json', kind: 'json' },
      { type: 'application/x-www-form-urlencoded', kind: 'form', encoding: { meta: { style: 'deepObject', explode: true } } },
      { type: 'application/octet-stream', kind: 'raw' },
    ],
  };

  it('sends a body in the media type chosen, with that Content-Type; bytes as they are', () => {
    const json = buildOperationRequest(UPLOAD, { params: {}, body: { value: { a: null } } }, { baseUrl: BASE });
    expect([json.headers['content-type'], json.body?.toString()]).toEqual(['application/merge-patch+json', '{"a":null}']);
    const form = buildOperationRequest(UPLOAD, { params: {}, body: { value: { meta: { plan: 'pro' } } }, contentType: 'application/x-www-form-urlencoded' }, { baseUrl: BASE });
    expect([form.headers['content-type'], form.body?.toString()]).toEqual(['application/x-www-form-urlencoded', 'meta[plan]=pro']);
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x20, 0x0a, 0x7d, 0xff]);
    const raw = buildOperationRequest(UPLOAD, { params: {}, body: { bytes }, contentType: 'application/octet-stream' }, { baseUrl: BASE });
    expect([raw.headers['content-type'], raw.body?.equals(bytes)]).toEqual(['application/octet-stream', true]);
    expect(() => buildOperationRequest(UPLOAD, { params: {}, body: { value: {} }, contentType: 'text/csv' }, { baseUrl: BASE })).toThrow(
      '--content-type text/csv is not offered: the operation takes application/merge-patch+json, application/x-www-form-urlencoded, application/octet-stream.',
    );
  });

  it('sends JSON for any media type (*/*) as application/json, and other bytes as application/octet-stream', () => {
    const any: RequestShape = { method: 'POST', path: '/echo', parameters: [], media: [{ type: '*/*', kind: 'json' }] };
    expect(buildOperationRequest(any, { params: {}, body: { value: { a: 1 } } }, { baseUrl: BASE }).headers['content-type']).toBe('application/json');
    const raw = buildOperationRequest(any, { params: {}, body: { bytes: Buffer.from('plain') } }, { baseUrl: BASE });
    expect([raw.headers['content-type'], raw.body?.toString()]).toEqual(['application/octet-stream', 'plain']);
  });

  it('chooses the first media type offered, the first made of fields for fields', () => {
    const rawFirst = { media: [UPLOAD.media[2], UPLOAD.media[1]] };
    expect(chooseMedia(rawFirst, undefined, false)?.type).toBe('application/octet-stream');
    expect(chooseMedia(rawFirst, undefined, true)?.type).toBe('application/x-www-form-urlencoded');
    expect(chooseMedia(UPLOAD, 'APPLICATION/X-WWW-FORM-URLENCODED; charset=utf-8', true)?.kind).toBe('form');
  });

  it("honours a server on the base URL's origin, and refuses another origin unless no token is sent", () => {
    const same: RequestShape = { method: 'GET', path: '/x', parameters: [], media: [], servers: ['https://api.example/v2/'] };
    expect(buildOperationRequest(same, { params: {} }, { baseUrl: BASE }).server).toBe('https://api.example/v2');
    const relative: RequestShape = { ...same, servers: ['/v3'] };
    expect(buildOperationRequest(relative, { params: {} }, { baseUrl: BASE }).server).toBe('https://api.example/v3');
    const other: RequestShape = { ...same, servers: ['https://uploads.example/'] };
    expect(() => buildOperationRequest(other, { params: {} }, { baseUrl: BASE })).toThrow(
      'GET /x is served by https://uploads.example, not https://api.example: the token is sent to https://api.example only.',
    );
    expect(buildOperationRequest(other, { params: {} }, { baseUrl: BASE, anonymous: true }).server).toBe('https://uploads.example');
    expect(() => buildOperationRequest({ ...same, servers: ['http://uploads.example'] }, { params: {} }, { baseUrl: BASE, anonymous: true })).toThrow(/plain http/);
  });
});
