import { UsageError } from '../errors.js';
import { assertSafeUrl } from '../http/transport.js';

/** The service origin (and path, if any) without a trailing slash; https, or http to loopback only. */
export function normalizeBaseUrl(input: string): string {
  const url = assertSafeUrl(input.includes('://') ? input : `https://${input}`, 'base URL');
  if (url.search || url.hash) throw new UsageError(`The base URL must not have a query or fragment: ${input}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
