import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor } from '../../src/http/proxy.js';
import { assertSafeUrl, isLoopbackHost } from '../../src/http/transport.js';
import { splitCommandLine } from '../../src/login/browser.js';

describe('transport guard', () => {
  it('allows https anywhere and http only on loopback', () => {
    expect(() => assertSafeUrl('https://school.example/x')).not.toThrow();
    expect(() => assertSafeUrl('http://127.0.0.1:8080/')).not.toThrow();
    expect(() => assertSafeUrl('http://localhost:3000/')).not.toThrow();
    expect(() => assertSafeUrl('http://[::1]:3000/')).not.toThrow();
    expect(() => assertSafeUrl('http://school.example/')).toThrow(/plain http:\/\/ .*refusing it/);
    expect(() => assertSafeUrl('http://127.0.0.1.evil.example/')).toThrow(/plain http:\/\/ .*refusing it/);
    expect(() => assertSafeUrl('ftp://school.example/')).toThrow(/unsupported/);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
  });
});

describe('proxy selection', () => {
  const env = { HTTPS_PROXY: 'http://proxy:3128', http_proxy: 'http://p2:8080', NO_PROXY: '.internal.example,localhost:9000,api.school.example' };
  it('picks the proxy by scheme', () => {
    expect(proxyFor(new URL('https://x.example/'), env)?.host).toBe('proxy:3128');
  });
  it('keeps cleartext loopback traffic on the machine: only a loopback proxy may carry it', () => {
    expect(proxyFor(new URL('http://127.0.0.1:8080/'), env)).toBeUndefined();
    expect(proxyFor(new URL('http://127.0.0.1:8080/'), { HTTP_PROXY: 'http://127.0.0.1:3128' })?.host).toBe('127.0.0.1:3128');
    expect(isLoopbackHost('evil.localhost')).toBe(false);
  });
  it('honours NO_PROXY suffixes, exact hosts and ports', () => {
    expect(bypassesProxy(new URL('https://a.internal.example/'), env)).toBe(true);
    expect(bypassesProxy(new URL('https://internal.example/'), env)).toBe(true);
    expect(bypassesProxy(new URL('https://sub.api.school.example/'), env)).toBe(true);
    expect(bypassesProxy(new URL('http://localhost:9000/'), env)).toBe(true);
    expect(bypassesProxy(new URL('http://localhost:9001/'), env)).toBe(false);
    expect(bypassesProxy(new URL('https://school.example/'), env)).toBe(false);
    expect(bypassesProxy(new URL('https://x/'), { NO_PROXY: '*' })).toBe(true);
  });
});

describe('BROWSER command line', () => {
  it('splits with quotes like a shell', () => {
    expect(splitCommandLine(`node "/path with space/driver.mjs" --flag 'a b'`)).toEqual(['node', '/path with space/driver.mjs', '--flag', 'a b']);
    expect(splitCommandLine('firefox')).toEqual(['firefox']);
  });
});
