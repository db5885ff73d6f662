import { AuthError } from '../errors.js';
import { DEFAULT_PROFILE } from '../options.js';
import { isPlainScope } from '../util/plain-name.js';
import type { Session } from './usable-session.js';

/** The one command that adds the missing scopes to the ones the user has, quoted for any shell. */
export function stepUpCommand(session: Pick<Session, 'scope' | 'profile'> | undefined, needed: string[]): string {
  const have = (session?.scope ?? 'openid').split(' ').filter(isPlainScope);
  const all = [...new Set([...have, ...needed])];
  const profile = session && session.profile !== DEFAULT_PROFILE ? ` --profile ${session.profile}` : '';
  return `school login${profile} --scope '${all.join(' ')}'`;
}

/** Exit 4 naming the missing scope and the exact login that fixes it. */
export function insufficientScopeError(summary: string, session: Pick<Session, 'scope' | 'profile' | 'source'> | undefined, needed: string[]): AuthError {
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

/** Exit 4 for a token the resource server rejected. */
export function tokenRejected(message: string, session: Pick<Session, 'source'>): AuthError {
  return new AuthError(message, {
    code: 'token_rejected',
    hint: session.source === 'env' ? 'Check the token in the environment.' : 'Run `school login`.',
  });
}
