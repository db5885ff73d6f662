import { AuthError } from '../errors.js';
import { loginCommandText } from '../util/login-command.js';
import { isPlainScope } from '../util/plain-name.js';
import type { Session } from './usable-session.js';

/**
 * The one command that adds the missing scopes to the ones the profile holds: `login --add-scope`
 * keeps what was granted, so the hint names only what is missing. The scopes are plain names
 * joined by commas, which no shell reads specially: nothing to quote.
 */
export function stepUpCommand(session: Pick<Session, 'profile'> | undefined, needed: string[]): string {
  return loginCommandText({ profile: session?.profile, addScope: [...new Set(needed.filter(isPlainScope))] });
}

/** Exit 4 naming the missing scope and the exact login that fixes it. */
export function insufficientScopeError(summary: string, session: Pick<Session, 'scope' | 'profile' | 'source'> | undefined, needed: string[]): AuthError {
  // `needed` holds only plain scope names: a server that named none (or none safely) gets no command to copy.
  const what = needed.length ? `the scope ${needed.join(' ')}` : 'a scope the server did not name as a plain scope name';
  const hint =
    session?.source === 'env'
      ? `Use a token that has ${what}.`
      : needed.length
        ? `Run: ${stepUpCommand(session, needed)}`
        : 'Find the scope in `school call --list`, then run: school login --add-scope <scope>';
  return new AuthError(`${summary}: ${session ? 'the token lacks' : 'this request needs'} ${what}.`, {
    code: 'insufficient_scope',
    scope: needed.join(' ') || undefined,
    hint,
  });
}

/** Exit 4 for a token the resource server rejected. */
export function tokenRejected(message: string, session: Pick<Session, 'source'>): AuthError {
  return new AuthError(message, {
    code: 'token_rejected',
    hint: session.source === 'env' ? 'Check the token in the environment.' : 'Run `school login`.',
  });
}
