import { type HttpClient, MAX_BYTES } from '../http/client.js';
import { printable } from '../util/printable.js';
import type { AuthorizationServer } from './oauth.js';

export type UserInfoResult =
  | { ok: true; claims: Record<string, unknown> }
  | { ok: false; status: number; error?: string; wwwAuthenticate?: string };

/** GET the userinfo endpoint from the metadata with the access token. Only that endpoint's origin sees the token. */
export async function requestUserInfo(http: HttpClient, as: AuthorizationServer, accessToken: string, signal?: AbortSignal): Promise<UserInfoResult> {
  if (!as.userinfo_endpoint) return { ok: false, status: 0, error: 'no_userinfo_endpoint' };
  const res = await http.request({
    url: as.userinfo_endpoint,
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    signal,
    maxBytes: MAX_BYTES.protocol,
  });
  const text = res.body.toString('utf8');
  if (res.status === 200) {
    try {
      const claims = JSON.parse(text) as Record<string, unknown>;
      if (claims && typeof claims === 'object' && !Array.isArray(claims)) return { ok: true, claims };
    } catch {
      // fall through: not JSON
    }
    return { ok: false, status: res.status, error: 'invalid_userinfo_response' };
  }
  let error: string | undefined;
  try {
    error = (JSON.parse(text) as { error?: string }).error;
  } catch {
    // the header says it
  }
  const www = res.headers['www-authenticate'];
  error ??= /error="([^"]+)"/.exec(www ?? '')?.[1];
  return { ok: false, status: res.status, error, wwwAuthenticate: www };
}

/** "Ada Lovelace ada@example.edu", or whatever part of it the claims have. */
export function describeUser(claims: { name?: unknown; email?: unknown; preferred_username?: unknown; sub?: unknown } | undefined): string {
  if (!claims) return 'an unknown user';
  const name = typeof claims.name === 'string' ? claims.name : typeof claims.preferred_username === 'string' ? claims.preferred_username : undefined;
  const email = typeof claims.email === 'string' ? claims.email : undefined;
  const parts = [name, email].filter(Boolean);
  if (parts.length) return printable(parts.join(' '));
  return typeof claims.sub === 'string' ? printable(`user ${claims.sub}`) : 'an unknown user';
}
