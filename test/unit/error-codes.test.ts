import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode, serverErrorCode } from '../../src/error-codes.js';
import { AuthError, CliError, UsageError, describeError } from '../../src/errors.js';

describe('the error-code catalogue', () => {
  it('gives each code one line of meaning and an exit code of the contract', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(info.meaning).toMatch(/^[A-Za-z].*\.$/);
      expect(info.meaning).not.toContain('\n');
      expect([1, 2, 4, 130]).toContain(info.exit);
    }
  });

  it('decides the exit code of an error by its code', () => {
    expect(new CliError('x', { code: 'not_logged_in' }).exitCode).toBe(4);
    expect(new CliError('x', { code: 'network_error' }).exitCode).toBe(1);
    expect(new UsageError('x').exitCode).toBe(2);
    expect(new UsageError('x', { code: 'blocked_port' })).toMatchObject({ code: 'blocked_port', exitCode: 2 });
    expect(new AuthError('x')).toMatchObject({ code: 'auth_required', exitCode: 4 });
    const codes: ErrorCode[] = ['usage', 'refresh_refused', 'timeout', 'interrupted'];
    for (const code of codes) expect(describeError(new CliError('x', { code })).exitCode).toBe(ERROR_CODES[code].exit);
  });

  it('passes on the OAuth codes a server may send, and files any other under oauth_error', () => {
    expect(serverErrorCode('invalid_grant')).toBe('invalid_grant');
    expect(serverErrorCode('temporarily_unavailable')).toBe('temporarily_unavailable');
    expect(serverErrorCode('slow_down')).toBe('oauth_error');
    // A server cannot make its answer look like one of the CLI's own codes.
    expect(serverErrorCode('not_logged_in')).toBe('oauth_error');
  });

  it('reports anything unclassified as unexpected_error', () => {
    expect(describeError(new Error('disk on fire'))).toMatchObject({ error: 'unexpected_error', exitCode: 1, message: 'disk on fire' });
  });
});
