import { describe, expect, it } from 'vitest';
import { startDeadline } from '../../src/run/deadline.js';
import { commandSpec } from '../../src/commands/table.js';
import { optionsFrom } from '../../src/commands/values.js';
import { compileJq, formatJqResults, jqMessage } from '../../src/run/jq.js';
import { PageGatherer, slurpPages } from '../../src/run/paginate.js';
import { MAX_BYTES } from '../../src/http/client.js';
import { backoffMs, parseRetryAfter, retriesAllowed, retryDecision } from '../../src/run/retry.js';

/** `call`'s options as the table makes them from the given flags: the checks of --retry and --timeout. */
const callFlags = (raw: Record<string, string>) => optionsFrom(commandSpec('call'), raw, ['/api/courses']);
const parseRetryCount = (raw: string | undefined) => callFlags(raw === undefined ? {} : { retry: raw }).retry;
const parseTimeout = (raw: string | undefined) => callFlags(raw === undefined ? {} : { timeout: raw }).timeout;
import { listingOf } from '../helpers/described-server.js';

describe('--slurp', () => {
  it('caps the pages --slurp gathers as a whole, and refuses a page that is not JSON', () => {
    const pages = new PageGatherer(64);
    pages.add(Buffer.from('{"page":1,"items":[1,2,3]}'), 1);
    pages.add(Buffer.from('{"page":2}'), 2);
    expect(JSON.parse(pages.joined())).toEqual([{ page: 1, items: [1, 2, 3] }, { page: 2 }]);
    expect(() => pages.add(Buffer.from(`{"page":3,"pad":"${'x'.repeat(40)}"}`), 3)).toThrow(/pages gathered by --slurp pass 64 bytes at page 3; stopped/);
    expect(() => new PageGatherer().add(Buffer.from('{"issuer":"aaa'), 1)).toThrow(/page 1 is not JSON/);
    expect(MAX_BYTES.body).toBe(256 * 1024 * 1024);
  });

  it('slurps pages into one JSON array without re-encoding them', () => {
    const all = slurpPages(['{"n": 12345678901234567890}\n', '[1,2]']);
    expect(all).toBe('[{"n": 12345678901234567890},[1,2]]');
    expect(JSON.parse(all)).toHaveLength(2);
  });
});

describe('Retry-After and the retry policy', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');

  it('reads delay-seconds and HTTP dates, capped at 60 s', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('3600', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Monday, 23-Nov-26 12:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Mon Nov 23 12:00:02 2026', now)).toBe(2000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 13:00:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores garbage', () => {
    for (const bad of [undefined, '', 'soon', '-1', '1.5', '2 s', 'Mon, 99 Foo 2026 12:00:05 GMT']) expect(parseRetryAfter(bad, now)).toBeUndefined();
  });

  it('retries GET and HEAD three times, other methods only when asked', () => {
    expect(retriesAllowed('GET', undefined)).toBe(3);
    expect(retriesAllowed('head', undefined)).toBe(3);
    for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) expect(retriesAllowed(m, undefined)).toBe(0);
    expect(retriesAllowed('POST', 2)).toBe(2);
    expect(retriesAllowed('GET', 0)).toBe(0);
    expect(parseRetryCount(undefined)).toBeUndefined();
    expect(parseRetryCount('5')).toBe(5);
    for (const bad of ['-1', 'x', '11', '1.5']) expect(() => parseRetryCount(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it('waits as told on 429 and 503, backs off without a Retry-After, and stops after the last attempt', () => {
    expect(retryDecision(503, '2', 1, 3, now)).toEqual({ delayMs: 2000, notice: 'Retrying in 2 s (HTTP 503, attempt 1 of 3)…' });
    expect(retryDecision(429, undefined, 2, 3, now)).toEqual({ delayMs: backoffMs(2), notice: 'Retrying in 2 s (HTTP 429, attempt 2 of 3)…' });
    expect(retryDecision(503, 'later', 3, 3, now)?.delayMs).toBe(4000);
    expect(retryDecision(503, '1', 4, 3, now)).toBeUndefined();
    expect(retryDecision(503, '1', 1, 0, now)).toBeUndefined();
    for (const status of [200, 404, 500, 502]) expect(retryDecision(status, '1', 1, 3, now)).toBeUndefined();
  });
});

describe('--timeout', () => {
  it('takes positive seconds, 60 by default', () => {
    expect(parseTimeout(undefined)).toBe(60);
    expect(parseTimeout('2.5')).toBe(2.5);
    for (const bad of ['0', '-1', 'x', '', '86401']) expect(() => parseTimeout(bad)).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => parseTimeout('100000')).toThrow('Invalid --timeout "100000": use a number of seconds above 0 and at most 86400.');
  });

  it('aborts when the deadline passes, and when the parent signal aborts', async () => {
    const parent = new AbortController();
    const deadline = startDeadline(0.05, parent.signal);
    await new Promise((r) => setTimeout(r, 80));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired()).toBe(true);
    expect(deadline.error().message).toBe('The request did not complete within 0.05 s.');
    const second = startDeadline(10, parent.signal);
    parent.abort();
    expect(second.signal.aborted).toBe(true);
    expect(second.expired()).toBe(false);
    second.dispose();
  });
});

describe('jq output', () => {
  it('prints strings raw and other values as compact JSON, one result per line', () => {
    expect(formatJqResults('"Lesson 1"\n"two\\nlines"\n3\nnull\n{"a":[1,2]}\n""')).toBe('Lesson 1\ntwo\nlines\n3\nnull\n{"a":[1,2]}\n\n');
    expect(formatJqResults('')).toBe('');
  });

  it('indents objects and arrays for a terminal', () => {
    const indent = (value: unknown) => JSON.stringify(value, null, 2);
    expect(formatJqResults('{"a":1}\n"s"\n[2]\n7', indent)).toBe('{\n  "a": 1\n}\ns\n[\n  2\n]\n7\n');
  });

  it('shortens jq messages to one line', () => {
    expect(jqMessage('jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 5:\n    .a | \n        ^\njq: 1 compile error')).toBe(
      'syntax error, unexpected end of file at <top-level>, line 1, column 5',
    );
    expect(jqMessage('jq: error (at /dev/stdin:0): Cannot index number with "b"')).toBe('Cannot index number with "b"');
  });

  it('runs real jq: a bad expression is a usage error, a non-JSON body a failure', async () => {
    const filter = await compileJq('.items[] | select(.n > 1) | .name');
    expect(filter.apply('{"items":[{"n":1,"name":"a"},{"n":2,"name":"b"},{"n":3,"name":"c"}]}')).toBe('b\nc\n');
    expect(() => filter.apply('<html>', 'The page 2')).toThrow('The page 2 is not JSON, so --jq cannot filter it.');
    expect(filter.apply('')).toBe('');
    expect(() => filter.apply('{"items":3}')).toThrow(expect.objectContaining({ exitCode: 1, message: expect.stringMatching(/^--jq: Cannot iterate over number/) }));
    await expect(compileJq('.items[')).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^Invalid --jq expression: syntax error/) });
    await expect(compileJq('map(nosuchfunction)')).rejects.toMatchObject({ exitCode: 2, message: 'Invalid --jq expression: nosuchfunction/0 is not defined at <top-level>, line 1, column 5.' });
    // Checking an expression never runs it: this one loops for ever on null.
    const walker = await compileJq('until(.done; .next) | .value # the last node');
    expect(walker.apply('{"done":false,"next":{"done":true,"value":"end"}}')).toBe('end\n');
    // Unbalanced parentheses the check's own would have closed are still a usage error.
    const unbalanced = await compileJq('.a) | (.b');
    expect(() => unbalanced.apply('{}')).toThrow(expect.objectContaining({ exitCode: 2, code: 'invalid_jq' }));
  });
});

describe('call --list from /openapi.json', () => {
  it('tells which operations paginate and lists their parameters', () => {
    const ops = listingOf({
      paths: {
        '/items': {
          get: { summary: 'List', 'x-paginated': true, parameters: [{ name: 'page', in: 'query', schema: { type: 'integer' } }] },
        },
        '/things/{id}': {
          parameters: [{ name: 'id', in: 'path', description: 'Thing id' }],
          get: { summary: 'One', responses: { 200: { headers: { Link: {} } } } },
          delete: { summary: 'Remove', responses: { 204: {} } },
        },
      },
    });
    expect(ops.map((o) => [o.method, o.path, o.paginated])).toEqual([
      ['GET', '/items', true],
      ['GET', '/things/{id}', true],
      ['DELETE', '/things/{id}', false],
    ]);
    expect(ops[0]!.parameters).toEqual([{ name: 'page', in: 'query', required: false, type: 'integer', flag: '--page' }]);
    expect(ops[2]!.parameters).toEqual([{ name: 'id', in: 'path', required: true, type: 'string', position: 1 }]);
  });
});
