import type { Session } from './session.js';
import { AuthError } from '../errors.js';
import { parseBearerChallenge } from '../http/www-authenticate.js';
import { SAFE_SCOPE } from '../util/plain-name.js';

/** What a protected resource's answer asks of us, from its status and Bearer challenge. */
export interface ChallengeOutcome {
  /** Worth one refresh and one retry: a Bearer challenge saying the token is invalid (or no reason). */
  refresh: boolean;
  /** The scopes a 403 insufficient_scope names, reduced to safe scope tokens. */
  insufficientScope?: string[];
  error?: string;
}

export function readChallenge(status: number, wwwAuthenticate: string | undefined): ChallengeOutcome {
  const challenge = parseBearerChallenge(wwwAuthenticate);
  if (status === 401) {
    return { refresh: Boolean(challenge && (!challenge.error || challenge.error === 'invalid_token')), error: challenge?.error };
  }
  if (status === 403 && challenge && (challenge.error === 'insufficient_scope' || challenge.scope !== undefined)) {
    const scopes = (challenge.scope ?? '').split(' ').filter((s) => SAFE_SCOPE.test(s));
    return { refresh: false, insufficientScope: scopes, error: challenge.error };
  }
  return { refresh: false, error: challenge?.error };
}

/** The one command that adds the missing scopes to the ones the user has, quoted for any shell. */
export function stepUpCommand(session: Pick<Session, 'scope' | 'profile'> | undefined, needed: string[]): string {
  const have = (session?.scope ?? 'openid').split(' ').filter((s) => SAFE_SCOPE.test(s));
  const all = [...new Set([...have, ...needed])];
  const profile = session && session.profile !== 'default' ? ` --profile ${session.profile}` : '';
  return `school login${profile} --scope '${all.join(' ')}'`;
}

/** Exit 4 naming the missing scope and the exact login that fixes it. */
export function insufficientScopeError(summary: string, session: Session | undefined, needed: string[]): AuthError {
  const scopeText = needed.length ? needed.join(' ') : 'a scope it does not have';
  const hint =
    session?.source === 'env'
      ? `Use a token that has the scope ${scopeText}.`
      : needed.length
        ? `Run: ${stepUpCommand(session, needed)}`
        : 'Run `school login --scope …` with the scopes this request needs (see `school call --list`).';
  return new AuthError(`${summary}: ${session ? 'the token lacks' : 'this request needs'} the scope ${scopeText}.`, {
    code: 'insufficient_scope',
    scope: needed.join(' ') || undefined,
    hint,
  });
}
