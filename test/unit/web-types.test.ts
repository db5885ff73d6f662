import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BufferedResponse, PlainHeaders, isResponse } from '../../src/http/web-types.js';

// Every behaviour oauth4webapi relies on, run against Node's own Headers and Response and against
// ours: the two must agree, outcome for outcome (a value, or the kind of error thrown).

type Outcome = { value: unknown } | { threw: string };

async function outcome(fn: () => unknown): Promise<Outcome> {
  try {
    return { value: await fn() };
  } catch (err) {
    return { threw: err instanceof Error ? err.constructor.name : typeof err };
  }
}

const headerName = fc.oneof(fc.constantFrom('Content-Type', 'content-type', 'WWW-Authenticate', 'Set-Cookie', 'x-a', 'X-A', 'dpop-nonce', 'Accept'), fc.string({ minLength: 0, maxLength: 6 }));
const headerValue = fc.oneof(fc.constantFrom('application/json', ' padded\t', 'a, b', 'Bearer error="invalid_token"', '', '\r\nx', 'é', 'ø€'), fc.string({ maxLength: 8 }));
const operation = fc.oneof(
  fc.record({ op: fc.constant('append' as const), name: headerName, value: headerValue }),
  fc.record({ op: fc.constant('set' as const), name: headerName, value: headerValue }),
  fc.record({ op: fc.constant('delete' as const), name: headerName }),
  fc.record({ op: fc.constant('get' as const), name: headerName }),
  fc.record({ op: fc.constant('has' as const), name: headerName }),
);

type Op = { op: 'append' | 'set'; name: string; value: string } | { op: 'delete' | 'get' | 'has'; name: string };

async function replay(headers: { append(n: string, v: string): void; set(n: string, v: string): void; delete(n: string): void; get(n: string): string | null; has(n: string): boolean }, ops: Op[]) {
  const results: Outcome[] = [];
  for (const o of ops) {
    results.push(await outcome(() => ('value' in o ? headers[o.op](o.name, o.value) : headers[o.op](o.name))));
  }
  return results;
}

describe('PlainHeaders behaves as the standard Headers', () => {
  it('agrees with Node on any sequence of append, set, delete, get and has, and on iteration', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 12 }), async (ops) => {
        const theirs = new Headers();
        const ours = new PlainHeaders();
        expect(await replay(ours, ops)).toEqual(await replay(theirs, ops));
        expect([...ours]).toEqual([...theirs]);
        expect([...ours.keys()]).toEqual([...theirs.keys()]);
        expect(ours.getSetCookie()).toEqual(theirs.getSetCookie());
      }),
      { numRuns: 400 },
    );
  });

  it('is built from a record, a list of pairs or another Headers, as Node builds one', () => {
    const record = { 'Content-Type': 'application/json', Accept: 'text/plain' };
    expect([...new PlainHeaders(record)]).toEqual([...new Headers(record)]);
    const pairs: [string, string][] = [
      ['a', '1'],
      ['A', '2'],
      ['set-cookie', 'x=1'],
      ['Set-Cookie', 'y=2'],
    ];
    expect([...new PlainHeaders(pairs)]).toEqual([...new Headers(pairs)]);
    expect([...new PlainHeaders(new Headers(pairs))]).toEqual([...new Headers(pairs)]);
    expect([...new PlainHeaders(new PlainHeaders(pairs))]).toEqual([...new Headers(pairs)]);
    expect(() => new PlainHeaders([['only-a-name']] as unknown as [string, string][])).toThrow(TypeError);
  });

  it('carries the tag oauth4webapi checks a Headers by', () => {
    expect(Object.prototype.toString.call(new PlainHeaders())).toBe(Object.prototype.toString.call(new Headers()));
  });
});

describe('BufferedResponse behaves as the standard Response', () => {
  const utf8 = (s: string) => new TextEncoder().encode(s);
  const cases: Array<[string, Uint8Array | string | null, ResponseInit]> = [
    ['a JSON body', utf8('{"access_token":"a","token_type":"Bearer"}'), { status: 200, headers: { 'content-type': 'application/json' } }],
    ['a byte order mark and malformed UTF-8', new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0xff]), { status: 400 }],
    ['no body', null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }],
    ['a 204', null, { status: 204 }],
    ['a text body', 'plain words', { status: 503, statusText: 'Service Unavailable' }],
    ['broken JSON', utf8('{"error":'), { status: 400, headers: { 'content-type': 'application/json' } }],
  ];

  for (const [label, body, init] of cases) {
    it(`agrees with Node on ${label}: status, headers, reading once, cloning`, async () => {
      const make = (kind: 'ours' | 'theirs') => (kind === 'ours' ? new BufferedResponse(body, init as never) : new Response(body as BodyInit | null, init));
      const observe = async (kind: 'ours' | 'theirs') => {
        const r = make(kind);
        const seen: Record<string, unknown> = {
          status: r.status,
          statusText: r.statusText,
          ok: r.ok,
          headers: [...r.headers],
          usedBefore: r.bodyUsed,
          clonedText: await outcome(() => r.clone().text()),
          usedAfterClone: r.bodyUsed,
          json: await outcome(() => r.json()),
          usedAfterRead: r.bodyUsed,
          readAgain: await outcome(() => r.text()),
          cloneAfterRead: await outcome(() => r.clone().status),
        };
        const bytes = make(kind);
        seen.bytes = [...new Uint8Array(await bytes.arrayBuffer())];
        return seen;
      };
      expect(await observe('ours')).toEqual(await observe('theirs'));
    });
  }

  it('refuses what Node refuses: a status outside 200-599, a body on a null-body status', async () => {
    for (const init of [{ status: 199 }, { status: 600 }, { status: 200.5 }, { status: 65736 }, { status: Number.NaN }]) {
      expect(await outcome(() => new BufferedResponse(null, init).status)).toEqual(await outcome(() => new Response(null, init).status));
    }
    expect(await outcome(() => new BufferedResponse('x', { status: 204 }).status)).toEqual(await outcome(() => new Response('x', { status: 204 }).status));
  });

  it("is told apart by the tag oauth4webapi checks, without Node's class", () => {
    expect(isResponse(new BufferedResponse(null))).toBe(true);
    expect(isResponse(new Response(null))).toBe(true);
    expect(isResponse({ status: 200, headers: new PlainHeaders() })).toBe(false);
    expect(isResponse(null)).toBe(false);
    expect(Object.getPrototypeOf(new BufferedResponse(null))[Symbol.toStringTag]).toBe((Response.prototype as unknown as Record<symbol, unknown>)[Symbol.toStringTag]);
  });
});
