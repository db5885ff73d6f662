import type { ErrorCode } from '../error-codes.js';
import { CliError } from '../errors.js';

/**
 * Why saved state gives no usable session. `status` reports these, `token`/`whoami`/`call` fail
 * with them (exit 4), and `logout` still cleans up after them.
 * - missing: nothing stored where the profile says its secrets are
 * - keyring_locked: the keychain holds nothing readable because it is locked or unreachable
 * - wrong_issuer: the stored tokens come from another authorization server than the profile's
 * - corrupt: the stored entry cannot be read as tokens
 * - refused: the server refused to renew the session (it counts as logged out)
 */
export type StateProblemKind = 'missing' | 'keyring_locked' | 'wrong_issuer' | 'corrupt' | 'refused';

const CODES: Record<StateProblemKind, ErrorCode & ('credentials_missing' | 'issuer_mismatch' | 'corrupt_store' | 'refresh_refused')> = {
  missing: 'credentials_missing',
  keyring_locked: 'credentials_missing',
  wrong_issuer: 'issuer_mismatch',
  corrupt: 'corrupt_store',
  refused: 'refresh_refused',
};

export class StateProblem extends CliError {
  readonly problem: StateProblemKind;

  constructor(problem: StateProblemKind, message: string, options: { hint?: string; command?: string; cause?: unknown } = {}) {
    super(message, { ...options, code: CODES[problem] });
    this.name = 'StateProblem';
    this.problem = problem;
  }
}
