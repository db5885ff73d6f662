import { classifyAnswer } from '../session/answer-problem.js';
import type { ScopeNeeded } from './types.js';

/**
 * What a `403 insufficient_scope` answer asks for (RFC 6750 §3.1), as the one classifier of answers
 * reads it: the scopes its Bearer (or DPoP) challenge names, and the `school login --add-scope …`
 * command that adds them; undefined for any other answer. Only plain scope names are passed on:
 * the hint is a command line to paste.
 */
export function scopeNeeded(response: Pick<Response, 'status' | 'headers'>): ScopeNeeded | undefined {
  const problem = classifyAnswer(response, {});
  if (problem?.kind !== 'insufficient_scope') return undefined;
  return { scope: problem.scopes, hint: problem.command ?? problem.hint };
}
