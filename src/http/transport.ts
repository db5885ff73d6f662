import { CliError, UsageError } from '../errors.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  // Only names that never leave the machine: `foo.localhost` may be asked of DNS here.
  if (LOOPBACK_NAMES.has(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function shown(u: URL): string {
  const s = u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : u.href;
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * Plain http:// carries tokens in the clear, so it is refused except to this machine.
 * A URL the user typed is a usage error (exit 2); one the server handed us is the server's fault (exit 1).
 */
export function assertSafeUrl(url: URL | string, what = 'URL', from: 'user' | 'server' = 'user'): URL {
  const fail = (message: string) =>
    from === 'user'
      ? new UsageError(message, { code: 'insecure_url' })
      : new CliError(`The server's metadata gives ${message.charAt(0).toLowerCase()}${message.slice(1)}`, { code: 'insecure_metadata' });
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    throw fail(`An invalid ${what}: ${String(url).slice(0, 80)}`);
  }
  if (u.protocol === 'https:') return u;
  if (u.protocol === 'http:') {
    if (isLoopbackHost(u.hostname)) return u;
    throw fail(`A plain http:// ${what} (${shown(u)}); refusing it: use https:// (http is allowed only for loopback addresses).`);
  }
  throw fail(`An unsupported ${what} scheme "${u.protocol}" (${shown(u)}); use https://.`);
}
