import { loginCommandText } from '../util/login-command.js';
import { UsageError } from '../errors.js';
import { isPlainScope } from '../util/plain-name.js';
import { printable } from '../util/printable.js';
import { editDistance } from '../util/edit-distance.js';

const IDENTITY_SCOPES = ['openid', 'profile', 'email'];
/** Added to whatever is asked wherever the server advertises them: an ID token, and refresh tokens on servers that issue them only for `offline_access` (OpenID Connect Core §11). */
const BASE_SCOPES = ['openid', 'offline_access'];

/** What the resource says of scopes, beside the authorization server's `scopes_supported`. */
export interface ResourceScopes {
  /** The protected-resource metadata's `scopes_supported` (RFC 9728). */
  resource?: string[];
  /** The scopes named by the challenge that led to that metadata (RFC 6750 §3). */
  challenge?: string[];
}

/**
 * `openid profile email` and every read scope advertised by the authorization server or the
 * resource, and the scopes a challenge named. The identity scopes go where the authorization
 * server lists them, or, where it lists none, to an OpenID provider. Where nothing lists scopes
 * the result is empty: no `scope` parameter, so that the server's default applies (RFC 6749 §3.3),
 * rather than a guess it may refuse.
 */
export function defaultScopes(supported: string[] | undefined, openIdProvider = true, more: ResourceScopes = {}): string[] {
  const resource = more.resource ?? [];
  const challenge = more.challenge ?? [];
  if (!supported?.length && !resource.length && !challenge.length) return [];
  const identity = supported?.length ? IDENTITY_SCOPES.filter((s) => supported.includes(s)) : openIdProvider ? [...IDENTITY_SCOPES] : [];
  const reads = [...(supported ?? []), ...resource].filter((s) => s.endsWith(':read'));
  return [...new Set([...identity, ...reads, ...challenge])];
}

/**
 * The scopes a `--scope` is checked against: the authorization server's list and the resource's.
 * Only where the authorization server lists its scopes: a resource's list alone says nothing of
 * `openid` and the like.
 */
export function knownScopes(supported: string[] | undefined, more: ResourceScopes = {}): string[] | undefined {
  if (!supported?.length) return undefined;
  return [...new Set([...supported, ...(more.resource ?? [])])];
}

/**
 * The scopes of an authorization request: those asked (or the defaults), with `openid` and
 * `offline_access` added where the server advertises them. The result may be empty: the request
 * then carries no `scope` parameter at all, which RFC 6749 §3.3 answers with the server's default
 * scope (or a clear refusal), whereas an empty `scope=` is a malformed value some servers reject
 * and others read as "nothing".
 */
export function requestedScopes(asked: string[] | undefined, supported: string[] | undefined, openIdProvider = true, more: ResourceScopes = {}): string[] {
  const base = BASE_SCOPES.filter((s) => supported?.includes(s));
  const chosen = asked?.length ? asked : defaultScopes(supported, openIdProvider, more);
  return [...new Set([...base, ...chosen])];
}

/**
 * The asked scopes the server did not grant (RFC 6749 §3.3: it says so in the token response's
 * `scope`; no `scope` there means everything asked was granted). `offline_access` is judged by the
 * refresh token it should bring rather than by its listing: many servers never list it.
 */
export function withheldScopes(asked: string[], granted: string | undefined, refreshTokenIssued: boolean): string[] {
  if (granted === undefined) return [];
  const grantedSet = new Set(granted.split(' ').filter(Boolean));
  return asked.filter((s) => {
    if (s === 'offline_access') return !refreshTokenIssued;
    // The identity scopes are about the ID token and userinfo, not the access token's audience;
    // servers that list only the API scopes of an access token have not withheld them.
    if (IDENTITY_SCOPES.includes(s) || ['address', 'phone'].includes(s)) return false;
    return !grantedSet.has(s);
  });
}

export function suggestScope(wrong: string, supported: string[]): string | undefined {
  // `orders:write` where only `orders:read` exists: the same resource beats a closer spelling.
  const resource = wrong.includes(':') ? wrong.slice(0, wrong.indexOf(':')).toLowerCase() : undefined;
  const sameResource = resource ? supported.filter((s) => s.toLowerCase().startsWith(`${resource}:`)) : [];
  const candidates = sameResource.length ? sameResource : supported;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const s of candidates) {
    const d = editDistance(wrong.toLowerCase(), s.toLowerCase());
    if (d < bestDistance) {
      best = s;
      bestDistance = d;
    }
  }
  // Close enough to be a typo: a few edits, relative to the length.
  if (sameResource.length) return best;
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(wrong.length / 3)) ? best : undefined;
}

/** `school login --scope …`: the fallback for callers that do not know the command line they came from. */
function plainLoginCommand(scopes: string[]): string {
  return loginCommandText({ scope: scopes });
}

/**
 * Refuses scopes the server does not advertise, naming the closest one it does; the hint is the
 * whole corrected command line.
 */
export function checkScopes(requested: string[], supported: string[] | undefined, retryCommand: (scopes: string[]) => string = plainLoginCommand): void {
  if (!supported?.length) return;
  const unknown = requested.filter((s) => !supported.includes(s));
  if (!unknown.length) return;
  const first = unknown[0];
  // Only a plain scope name from the server may be suggested: the hint is a command line to paste.
  const suggestable = supported.filter(isPlainScope);
  const suggestion = suggestScope(first, suggestable);
  const names = unknown.map((s) => `"${printable(s)}"`).join(', ');
  // Every unknown scope is replaced by its suggestion, or dropped when there is none.
  const corrected = [...new Set(requested.flatMap((s) => (supported.includes(s) ? [s] : (suggestScope(s, suggestable) ?? []))))];
  throw new UsageError(
    `Unknown scope${unknown.length > 1 ? 's' : ''} ${names}: the server does not offer ${unknown.length > 1 ? 'them' : 'it'}.${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
    {
      code: 'invalid_scope',
      scope: first,
      hint:
        suggestion && corrected.length && corrected.every(isPlainScope)
          ? retryCommand(corrected)
          : `See the scopes the profile holds in \`school status --json\`, and every option in:\n${loginCommandText({ options: ['--help'] })}`,
    },
  );
}
