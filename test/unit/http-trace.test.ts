// The HTTP client's --verbose trace and size caps, against a local server that misbehaves.
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BYTES, createHttpClient } from '../../src/http/client.js';
import { fetchFor } from '../../src/http/fetch-adapter.js';
import { CliError } from '../../src/errors.js';

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const ACCESS = 'at-trace-0123456789abcdef';
const REFRESH = 'rt-trace-0123456789abcdef';

let base: string;
let bytesSent = 0;
const server = createServer((req, res) => {
  if (req.url === '/token') {
    res.writeHead(200, { 'content-type': 'application/json', 'x-debug': `issued ${ACCESS}`, 'x-refresh-token': REFRESH, 'set-cookie': 'sid=abc123456789' });
    res.end(JSON.stringify({ access_token: ACCESS, refresh_token: REFRESH, token_type: 'Bearer', mirror: { copy: ACCESS }, note: `again ${REFRESH}` }));
    return;
  }
  if (req.url === '/evil') {
    // A reason phrase and headers with escapes, written raw: Node's writeHead would refuse them.
    const socket = res.socket as Socket;
    const body = 'text \u001b]52;c;aGk=\u0007 and \u202eevil\nsecond line\n';
    socket.end(`HTTP/1.1 200 OK \u001b[2J\u202e\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    return;
  }
  if (req.url === '/trickle') {
    // One byte every 100 ms, for ever: never idle long enough for an idle timeout.
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 100);
    res.on('close', () => clearInterval(timer));
    return;
  }
  if (req.url?.startsWith('/huge')) {
    const declare = req.url.endsWith('declared');
    res.writeHead(200, declare ? { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) } : { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (bytesSent < 100 * 1024 * 1024) {
        bytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
    return;
  }
  res.writeHead(404).end();
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function tracedClient() {
  const trace = new PassThrough();
  let text = '';
  trace.on('data', (c) => (text += c));
  return { http: createHttpClient({ env: {}, trace }), text: () => text };
}

describe('the --verbose trace', () => {
  it('knows the tokens of an answer before writing it: copies in headers and other fields are redacted', async () => {
    const { http, text } = tracedClient();
    const res = await http.request({
      method: 'POST',
      url: `${base}/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=rt-old-0123456789',
    });
    expect(res.status).toBe(200);
    const trace = text();
    for (const secret of [ACCESS, REFRESH, 'rt-old-0123456789', 'abc123456789']) expect(trace).not.toContain(secret);
    expect(trace).toContain('< x-debug: issued [REDACTED]');
    expect(trace).toContain('< x-refresh-token: [REDACTED]');
    expect(trace).toContain('"note":"again [REDACTED]"');
  });

  it('shows a reason phrase, headers and a text body with their controls made visible', async () => {
    const { http, text } = tracedClient();
    const res = await http.request({ url: `${base}/evil` });
    // The data itself is untouched: it is the caller's to print (byte-exact when piped).
    expect(res.body.toString()).toContain('\u001b]52;c;');
    const trace = text();
    expect(trace).not.toMatch(UNSAFE);
    expect(trace).toContain('\\u{1b}]52;c;aGk=\\u{7}');
    expect(trace).toContain('< second line');
  });
});

describe('size caps', () => {
  it.each([false, true])('stops reading as soon as the cap is passed (content-length declared: %s)', async (declared) => {
    const http = createHttpClient({ env: {} });
    bytesSent = 0;
    const err = await http.request({ url: `${base}/huge${declared ? '-declared' : ''}`, maxBytes: MAX_BYTES.protocol }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).code).toBe('response_too_large');
    expect((err as CliError).message).toMatch(/larger than 1 MiB; stopped reading it\.$/);
    expect(bytesSent).toBeLessThan(32 * 1024 * 1024);
  });

  it('gives a protocol exchange a deadline for the whole answer, however it trickles', async () => {
    const fetch = fetchFor(createHttpClient({ env: {} }), 5_000, MAX_BYTES.protocol, 800);
    const started = Date.now();
    const err = await fetch(`${base}/trickle`, { method: 'GET', headers: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).message).toMatch(/^No complete answer from http:\/\/127\.0\.0\.1:\d+ within 1 seconds; gave up\.$/);
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('caps protocol answers through the oauth4webapi fetch adapter at 1 MiB', async () => {
    const fetch = fetchFor(createHttpClient({ env: {} }));
    await expect(fetch(`${base}/huge`, { method: 'GET', headers: {} })).rejects.toMatchObject({ code: 'response_too_large' });
  });
});
