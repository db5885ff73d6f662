import type { ErrorCode } from '../error-codes.js';

/**
 * Every failure of the library: `code` is a code of the catalogue docs/troubleshooting.md documents (the same
 * as `school … --json` prints), `exitCode` what the command line would exit with.
 */
export class SchoolError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;
  /** What to do about it, when there is something to do (often a `school login …` command). */
  readonly hint?: string;
  /** The missing scope, for `insufficient_scope`. */
  readonly scope?: string;

  constructor(message: string, options: { code: ErrorCode; exitCode: number; hint?: string; scope?: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SchoolError';
    this.code = options.code;
    this.exitCode = options.exitCode;
    this.hint = options.hint;
    this.scope = options.scope;
  }
}
