import type { Deps } from '../deps.js';

/**
 * The scopes a profile's session holds now, for `login --add-scope`: undefined when the profile has
 * no readable tokens from this issuer (the default set is then the base). A session the server
 * refused to renew still says what the user had chosen.
 */
export async function heldScopes(deps: Pick<Deps, 'state'>, name: string, issuer: string): Promise<string[] | undefined> {
  const profile = await deps.state.profile(name).catch(() => undefined);
  if (!profile || profile.issuer !== issuer) return undefined;
  const found = await deps.state.inspectTokens(name, profile, { evenIfRefused: true }).catch(() => undefined);
  if (!found?.ok || found.set.issuer !== issuer || found.set.scope === undefined) return undefined;
  return found.set.scope.split(' ').filter(Boolean);
}

/** The scopes the profile held before a login that its new session lacks. */
export function droppedScopes(before: string | undefined, after: string | undefined): string[] {
  if (before === undefined || after === undefined) return [];
  const kept = new Set(after.split(' '));
  return before.split(' ').filter((s) => s && !kept.has(s));
}
