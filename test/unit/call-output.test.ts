// What `call` prints: a script gets the server's bytes; a person at a terminal gets them with every
// control, escape and bidi character made visible (headers with -i, text and JSON bodies).
import { describe, expect, it } from 'vitest';
import { writeResponse } from '../../src/run/output.js';
import type { HttpResponse } from '../../src/http/client.js';
import { testIO } from '../helpers/test-io.js';

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const EVIL = '\u001b]52;c;aGk=\u0007\u001b[2J\u202e\u009b';

function response(body: string, contentType: string): HttpResponse {
  return {
    status: 200,
    statusText: `OK${EVIL}`,
    headers: { 'content-type': contentType },
    rawHeaders: ['Content-Type', contentType, 'X-Note', `n${EVIL}`],
    body: Buffer.from(body),
    url: 'http://127.0.0.1/x',
    httpVersion: '1.1',
  };
}

describe('call output', () => {
  it.each([
    ['text/plain', `line one${EVIL}\nline two\n`],
    ['application/json', JSON.stringify({ name: `Ada${EVIL}`, ok: true })],
  ])('piped: %s body and -i headers exactly as they came', async (type, body) => {
    const io = testIO({ tty: false });
    await writeResponse(io, response(body, type), true);
    // A JSON body that ends without a newline gets one, as `gh api` and `jq` end theirs; the rest is as it came.
    const ending = type === 'application/json' ? '\n' : '';
    expect(io.stdout()).toBe(`HTTP/1.1 200 OK${EVIL}\r\nContent-Type: ${type}\r\nX-Note: n${EVIL}\r\n\r\n${body}${ending}`);
  });

  it.each([
    ['application/json', '{"a":1}', '{"a":1}\n'],
    ['application/merge-patch+json', '[1,2]', '[1,2]\n'],
    ['application/json', '{"a":1}\n', '{"a":1}\n'],
    ['text/plain', 'no newline', 'no newline'],
    ['application/octet-stream', '\u0000\u0001binary', '\u0000\u0001binary'],
  ])('piped: a %s body %j is written as %j', async (type, body, written) => {
    const io = testIO({ tty: false });
    await writeResponse(io, response(body, type), false);
    expect(io.stdout()).toBe(written);
  });

  it.each([
    ['text/plain', `line one${EVIL}\nline two\n`],
    ['application/json', JSON.stringify({ name: `Ada${EVIL}`, ok: true })],
  ])('on a terminal: %s body and -i headers with nothing a terminal acts on', async (type, body) => {
    const io = testIO({ tty: true });
    await writeResponse(io, response(body, type), true);
    const shown = io.stdout().replace(/\r\n/g, '\n').replace(/\n/g, '');
    expect(shown).not.toMatch(UNSAFE);
    expect(io.stdout()).toContain('\\u{1b}]52;c;aGk=');
    if (type === 'application/json') expect(JSON.parse(io.stdout().split('\r\n\r\n')[1]).name).toBe(`Ada${EVIL}`);
  });
});

describe('--jq output', () => {
  it('prints a string result raw for a script, with its controls made visible on a terminal', async () => {
    const { formatJqResults } = await import('../../src/run/jq.js');
    const compact = `${JSON.stringify(`Ada${EVIL}\nnext`)}\n{"n":1}\n`;
    expect(formatJqResults(compact)).toBe(`Ada${EVIL}\nnext\n{"n":1}\n`);
    const shown = formatJqResults(compact, (value) => JSON.stringify(value, null, 2));
    expect(shown.replace(/\n/g, '')).not.toMatch(UNSAFE);
    expect(shown).toContain('Ada\\u{1b}]52;c;aGk=');
  });

  it('keeps a jq error quoting a huge server value to one short line', async () => {
    const { jqMessage } = await import('../../src/run/jq.js');
    const message = jqMessage(`jq: error (at <stdin>:0): Cannot index string with "${'x'.repeat(100_000)}"\nmore\n`);
    expect(message.length).toBeLessThanOrEqual(301);
    expect(message.startsWith('Cannot index string with "xxx')).toBe(true);
  });
});
