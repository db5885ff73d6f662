import { UsageError } from '../errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Plain http:// carries tokens in the clear, so it is refused except to this machine. */
export function assertSafeUrl(url: URL | string, what = 'URL'): URL {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    throw new UsageError(`Invalid ${what}: ${String(url)}`);
  }
  if (u.protocol === 'https:') return u;
  if (u.protocol === 'http:') {
    if (isLoopbackHost(u.hostname)) return u;
    throw new UsageError(`Refusing plain http:// for ${what} ${u.origin}: use https:// (http is allowed only for loopback addresses).`, {
      code: 'insecure_url',
    });
  }
  throw new UsageError(`Unsupported ${what} scheme "${u.protocol}" in ${u.origin}: use https://.`, { code: 'insecure_url' });
}
