import { AuthError } from '../errors.js';
import { loginCommandText } from '../util/login-command.js';
import { isPlainScope } from '../util/plain-name.js';
import { problemError, scopeProblem } from './answer-problem.js';
import type { Session } from './usable-session.js';

/**
 * The one command that adds the missing scopes to the ones the profile holds: `login --add-scope`
 * keeps what was granted, so the hint names only what is missing. The scopes are plain names
 * joined by commas, which no shell reads specially: nothing to quote.
 */
export function stepUpCommand(session: Pick<Session, 'profile'> | undefined, needed: string[]): string {
  return loginCommandText({ profile: session?.profile, addScope: [...new Set(needed.filter(isPlainScope))] });
}

/** Exit 4 naming the missing scope and the exact login that fixes it (the classifier's scope problem). */
export function insufficientScopeError(summary: string, session: Pick<Session, 'profile' | 'source'> | undefined, needed: string[]): AuthError {
  return problemError(summary, scopeProblem(needed, { session }));
}

/** Exit 4 for a token the server rejected (userinfo, introspection): the login of the same profile. */
export function tokenRejected(message: string, session: Pick<Session, 'source' | 'profile'>): AuthError {
  return new AuthError(message, {
    code: 'token_rejected',
    hint: session.source === 'env' ? 'Check the token in the environment.' : loginCommandText({ profile: session.profile }),
  });
}
