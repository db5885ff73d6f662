// The `school` package for Node: the session the command line keeps, for scripts. Importing it
// reads no file and makes no request; `openSession` does the rest.
import { libraryDeps } from './deps.js';
import { openSessionWith } from './open-session.js';
import type { OpenSessionOptions, Session } from './types.js';

export { SchoolError } from './school-error.js';
export { scopeNeeded } from './scope-needed.js';
export type { OpenSessionOptions, ScopeNeeded, Session, TokenOptions } from './types.js';
export type { ErrorCode } from '../error-codes.js';

/**
 * Opens the session of a profile exactly as the command line resolves it: the options, then the
 * SCHOOL_* variables, then the stored profile (SCHOOL_TOKEN and the headless variables honoured).
 * Rejects with SchoolError `not_logged_in` when there is no session, unless `anonymous` is true.
 */
export function openSession(options?: OpenSessionOptions): Promise<Session> {
  return openSessionWith(libraryDeps(), options);
}
