import { request } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startLoopback } from '../../src/login/loopback.js';

function get(port: number, path: string, host = '127.0.0.1'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('loopback listener', () => {
  it('binds 127.0.0.1 only and accepts exactly its callback path, once', async () => {
    const l = await startLoopback({ port: 0, path: '/callback', timeoutMs: 10_000 });
    expect(l.redirectUri).toBe(`http://127.0.0.1:${l.port}/callback`);
    expect((await get(l.port, '/favicon.ico')).status).toBe(404);
    expect((await get(l.port, '/callback/extra?code=x')).status).toBe(404);
    const first = get(l.port, '/callback?code=abc&state=s1');
    const url = await l.callback;
    expect(url.searchParams.get('state')).toBe('s1');
    expect((await get(l.port, '/callback?code=second')).status).toBe(409);
    await l.finish({ ok: true, title: 'Logged in', message: 'done <b>' });
    const page = await first;
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-ok="true"');
    expect(page.body).toContain('done &#60;b&#62;');
    await expect(get(l.port, '/callback')).rejects.toThrow();
  });

  it('is not reachable on other local addresses', async () => {
    const l = await startLoopback({ port: 0, path: '/cb', timeoutMs: 10_000 });
    try {
      await expect(get(l.port, '/cb', '127.0.0.2')).rejects.toThrow();
    } finally {
      await l.close();
    }
  });

  it('times out with a clear error', async () => {
    const l = await startLoopback({ port: 0, path: '/cb', timeoutMs: 200 });
    await expect(l.callback).rejects.toThrow(/No sign-in response arrived within/);
  });

  it('stops on abort (Ctrl-C) with exit code 130', async () => {
    const ac = new AbortController();
    const l = await startLoopback({ port: 0, path: '/cb', timeoutMs: 10_000, signal: ac.signal });
    ac.abort();
    await expect(l.callback).rejects.toMatchObject({ exitCode: 130 });
  });

  it('says so when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startLoopback({ port, path: '/cb', timeoutMs: 1000 })).rejects.toMatchObject({ code: 'port_in_use' });
    } finally {
      blocker.close();
    }
  });
});

describe('loopback listener paths', () => {
  it('does not take a dot-segment path for the callback', async () => {
    const { connect } = await import('node:net');
    const l = await startLoopback({ port: 0, path: '/callback', timeoutMs: 5000 });
    try {
      // Sent raw: an HTTP client would normalise the path before sending it.
      const status = await new Promise<string>((resolve, reject) => {
        const s = connect(l.port, '127.0.0.1', () => s.end('GET /x/../callback?code=a&state=b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
        let data = '';
        s.on('data', (c) => (data += c));
        s.on('end', () => resolve(data.split('\r\n')[0]));
        s.on('error', reject);
      });
      expect(status).toBe('HTTP/1.1 404 Not Found');
      const raced = await Promise.race([l.callback.then(() => 'callback'), new Promise((r) => setTimeout(() => r('waiting'), 100))]);
      expect(raced).toBe('waiting');
    } finally {
      await l.close();
    }
  });
});
