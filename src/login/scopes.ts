import { UsageError } from '../errors.js';
import { isPlainScope } from '../util/plain-name.js';
import { printable } from '../util/printable.js';

export function parseScopes(input: string | string[] | undefined): string[] {
  const raw = Array.isArray(input) ? input.join(' ') : (input ?? '');
  const seen = new Set<string>();
  for (const s of raw.split(/[\s,]+/)) if (s) seen.add(s);
  return [...seen];
}

/** `openid profile email` (where offered) and every read scope the server advertises. */
export function defaultScopes(supported: string[] | undefined): string[] {
  const identity = ['openid', 'profile', 'email'];
  if (!supported?.length) return identity;
  return [...identity.filter((s) => supported.includes(s)), ...supported.filter((s) => s.endsWith(':read'))];
}

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
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

/** `school login --scope '…'`: the fallback for callers that do not know the command line they came from. */
function plainLoginCommand(scopes: string[]): string {
  return `school login --scope '${scopes.join(' ')}'`;
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
          : 'Run `school login --help` and see the scopes in `school status --json`.',
    },
  );
}
