import type { Env } from '../types/env.js';
import { isLoopbackHost } from './transport.js';

function envValue(env: Env, name: string): string | undefined {
  return env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;
}

/** Whether NO_PROXY exempts this host, with the usual curl-like rules. */
export function bypassesProxy(url: URL, env: Env): boolean {
  const noProxy = envValue(env, 'no_proxy');
  if (!noProxy) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let entryPort: string | undefined;
    const m = /^(.*?):(\d+)$/.exec(entry);
    if (m && !entry.includes(']') && (m[1].match(/:/g) ?? []).length === 0) {
      entry = m[1];
      entryPort = m[2];
    }
    entry = entry.replace(/^\[|\]$/g, '');
    if (entryPort && entryPort !== port) continue;
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry) || host === entry.slice(1)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

/**
 * The proxy to use for a request, from HTTPS_PROXY / HTTP_PROXY / NO_PROXY. Plain http is only
 * ever allowed to loopback, and its cleartext must not leave the machine through a proxy: such a
 * request goes through a proxy only when the proxy is on loopback too.
 */
export function proxyFor(url: URL, env: Env): URL | undefined {
  const value = url.protocol === 'https:' ? envValue(env, 'https_proxy') : envValue(env, 'http_proxy');
  if (!value || bypassesProxy(url, env)) return undefined;
  let proxy: URL;
  try {
    proxy = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(proxy.hostname)) return undefined;
  return proxy;
}
