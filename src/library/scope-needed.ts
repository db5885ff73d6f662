import { readChallenges } from '../oauth/challenge-header.js';
import { stepUpCommand } from '../session/step-up.js';
import { isPlainScope } from '../util/plain-name.js';
import type { ScopeNeeded } from './types.js';

/**
 * What a `403 insufficient_scope` answer asks for (RFC 6750 §3.1): the scopes its Bearer (or DPoP)
 * challenge names, and the `school login --add-scope …` command that adds them; undefined for any
 * other answer. Only plain scope names are passed on: the hint is a command line to paste.
 */
export function scopeNeeded(response: Pick<Response, 'status' | 'headers'>): ScopeNeeded | undefined {
  if (response.status !== 403) return undefined;
  const challenges = readChallenges(response.headers.get('www-authenticate')).filter((c) => c.scheme === 'bearer' || c.scheme === 'dpop');
  const challenge = challenges.find((c) => c.parameters.error === 'insufficient_scope');
  if (!challenge) return undefined;
  const scope = [...new Set((challenge.parameters.scope ?? '').split(' ').filter(isPlainScope))];
  const hint = scope.length ? stepUpCommand(undefined, scope) : 'school login --add-scope <scope> (the server did not name the scope)';
  return { scope, hint };
}
