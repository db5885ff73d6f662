// A fault-injecting forward proxy for plain http on loopback, placed between the CLI (through
// HTTP_PROXY) and the sandbox. Each test tells it how to misbehave: answer in the server's place,
// rewrite the server's answer (status, reason phrase, headers, JSON or text body), cut the
// connection before or after the server acted, stop half-way through a body, or stream a huge
// document generated on the fly (never held in memory). Requests no fault matches pass unchanged.
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Answer {
  status: number;
  reason?: string;
  headers: Record<string, string | string[]>;
  body: string | Buffer;
}

export type FaultAction =
  /** Answer in the server's place; the server never sees the request. */
  | { kind: 'respond'; answer: (req: SeenRequest) => Partial<Answer> & { status: number } }
  /** Let the server answer, then change what the CLI receives. */
  | { kind: 'rewrite'; answer: (upstream: Answer, req: SeenRequest) => Answer }
  /** Close the connection without an answer: before the server saw the request, or after it acted on it. */
  | { kind: 'reset'; after: 'nothing' | 'upstream' }
  /**
   * Let the server answer (it has acted), keep the answer in `held`, and pass it on only once
   * `until()` settles: a request in flight for as long as a test needs.
   */
  | { kind: 'hold'; until: () => Promise<unknown>; held: Answer[] }
  /** Forward the server's answer but stop after this many bytes of its body, closing the connection. */
  | { kind: 'truncate'; bytes: number }
  /** A body of `bytes` bytes produced as the CLI reads it (with or without a content-length). */
  | { kind: 'stream'; status: number; contentType: string; bytes: number; declareLength: boolean };

export interface Fault {
  method?: string;
  /** Matched against the path (without the query). */
  path: RegExp;
  /** Extra condition on the request, e.g. its grant_type. */
  when?: (req: SeenRequest) => boolean;
  /** How many matching requests it applies to; every one when omitted. */
  times?: number;
  action: FaultAction;
}

export interface HostileProxy {
  url: string;
  /** The environment that sends the CLI's requests through the proxy. */
  env: { HTTP_PROXY: string; NO_PROXY: string };
  /** Adds a fault; returns a counter of the requests it applied to. */
  inject(fault: Fault): { hits(): number };
  /** Removes every fault. */
  clear(): void;
  /** Every request relayed or answered, in order. */
  seen: SeenRequest[];
  /** Bytes of streamed bodies written so far (for the size-cap test). */
  streamedBytes(): number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function withoutHopHeaders(headers: IncomingMessage['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'proxy-authorization'].includes(k)) continue;
    out[k] = v;
  }
  return out;
}

function forward(seen: SeenRequest, req: IncomingMessage, body: Buffer): Promise<{ res: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = withoutHopHeaders(req.headers);
    headers['content-length'] = String(body.length);
    const upstream = httpRequest({ host: seen.url.hostname, port: seen.url.port, path: `${seen.url.pathname}${seen.url.search}`, method: req.method, headers }, (res) => {
      readBody(res).then((b) => resolve({ res, body: b }), reject);
    });
    upstream.on('error', reject);
    upstream.end(body);
  });
}

function send(res: ServerResponse, a: Answer): void {
  const body = typeof a.body === 'string' ? Buffer.from(a.body) : a.body;
  const headers: Record<string, string | string[]> = { ...a.headers, 'content-length': String(body.length) };
  delete headers['transfer-encoding'];
  // writeHead refuses control characters in a reason phrase or a header value: write them raw ourselves.
  const unsafe = /[\u0000-\u0008\u000a-\u001f\u007f-\uffff]/;
  const rawHeaders = Object.values(headers).some((v) => (Array.isArray(v) ? v : [v]).some((one) => unsafe.test(one)));
  if ((a.reason !== undefined && unsafe.test(a.reason)) || rawHeaders) {
    const socket = res.socket as Socket;
    const lines = [`HTTP/1.1 ${a.status} ${a.reason ?? ''}`];
    for (const [k, v] of Object.entries(headers)) for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${one}`);
    lines.push('connection: close');
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body]));
    socket.end();
    return;
  }
  res.writeHead(a.status, a.reason ?? '', headers);
  res.end(body);
}

export async function hostileProxy(): Promise<HostileProxy> {
  const faults: Array<Fault & { count: number }> = [];
  const seen: SeenRequest[] = [];
  let streamed = 0;
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const entry: SeenRequest = { method: req.method ?? 'GET', url: new URL(req.url ?? '/'), headers: req.headers, body: body.toString('utf8') };
      seen.push(entry);
      const fault = faults.find((f) => (f.times === undefined || f.count < f.times) && (!f.method || f.method === entry.method) && f.path.test(entry.url.pathname) && (!f.when || f.when(entry)));
      if (fault) fault.count += 1;
      const action = fault?.action;
      const socket = req.socket;

      if (action?.kind === 'respond') {
        const a = action.answer(entry);
        send(res, { headers: {}, body: '', ...a });
        return;
      }
      if (action?.kind === 'reset' && action.after === 'nothing') {
        socket.destroy();
        return;
      }
      if (action?.kind === 'stream') {
        const headers: Record<string, string> = { 'content-type': action.contentType };
        if (action.declareLength) headers['content-length'] = String(action.bytes);
        res.writeHead(action.status, headers);
        // One JSON object whose string value never ends within the cap: produced lazily.
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let left = action.bytes;
        const head = Buffer.from('{"issuer":"');
        res.write(head);
        left -= head.length;
        streamed += head.length;
        const pump = () => {
          while (left > 0) {
            const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
            left -= piece.length;
            streamed += piece.length;
            if (!res.write(piece)) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
        return;
      }

      let upstream: { res: IncomingMessage; body: Buffer };
      try {
        upstream = await forward(entry, req, body);
      } catch {
        res.writeHead(502).end();
        return;
      }
      if (action?.kind === 'reset') {
        socket.destroy();
        return;
      }
      const answer: Answer = {
        status: upstream.res.statusCode ?? 502,
        reason: upstream.res.statusMessage,
        headers: withoutHopHeaders(upstream.res.headers),
        body: upstream.body,
      };
      if (action?.kind === 'hold') {
        action.held.push(answer);
        await action.until();
      }
      if (action?.kind === 'truncate') {
        const headers = { ...answer.headers, 'content-length': String(answer.body.length) };
        res.writeHead(answer.status, headers);
        res.write(Buffer.from(answer.body).subarray(0, action.bytes), () => socket.destroy());
        return;
      }
      send(res, action?.kind === 'rewrite' ? action.answer(answer, entry) : answer);
    })().catch(() => {
      req.socket.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: { HTTP_PROXY: url, NO_PROXY: '' },
    inject(fault) {
      const entry = { ...fault, count: 0 };
      faults.push(entry);
      return { hits: () => entry.count };
    },
    clear() {
      faults.length = 0;
    },
    seen,
    streamedBytes: () => streamed,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** JSON body of an answer, changed by `fn`. */
// biome-ignore lint/suspicious/noConfusingVoidType: a rewrite may change the document in place and return nothing.
export function rewriteJson(fn: (doc: Record<string, unknown>, req: SeenRequest) => Record<string, unknown> | void) {
  return (a: Answer, req: SeenRequest): Answer => {
    const doc = JSON.parse(a.body.toString()) as Record<string, unknown>;
    const out = fn(doc, req) ?? doc;
    return { ...a, body: JSON.stringify(out) };
  };
}

/** The form parameters of a request body. */
export function formOf(req: SeenRequest): URLSearchParams {
  return new URLSearchParams(req.body);
}
