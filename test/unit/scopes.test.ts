import { describe, expect, it } from 'vitest';
import { checkScopes, defaultScopes, parseScopes, suggestScope } from '../../src/login/scopes.js';

const SUPPORTED = ['openid', 'profile', 'email', 'courses:read', 'courses:write', 'students:read', 'orders:read', 'storage:write'];

describe('scopes', () => {
  it('parses space- and comma-separated lists, de-duplicated, across repeats', () => {
    expect(parseScopes(['openid,profile', 'courses:read  openid'])).toEqual(['openid', 'profile', 'courses:read']);
  });

  it('defaults to identity scopes plus every advertised read scope', () => {
    expect(defaultScopes(SUPPORTED)).toEqual(['openid', 'profile', 'email', 'courses:read', 'students:read', 'orders:read']);
    expect(defaultScopes(undefined)).toEqual(['openid', 'profile', 'email']);
  });

  it('suggests the closest scope for a typo', () => {
    expect(suggestScope('cources:read', SUPPORTED)).toBe('courses:read');
    expect(suggestScope('orders:write', SUPPORTED)).toBe('orders:read');
    expect(suggestScope('zzzzzzzzzzzz', SUPPORTED)).toBeUndefined();
  });

  it('refuses unknown scopes with a usage error naming the suggestion', () => {
    try {
      checkScopes(['openid', 'cources:read'], SUPPORTED);
      expect.unreachable();
    } catch (err) {
      const e = err as { exitCode: number; message: string; scope: string; hint: string };
      expect(e.exitCode).toBe(2);
      expect(e.message).toContain('"cources:read"');
      expect(e.message).toContain('Did you mean "courses:read"?');
      expect(e.hint).toBe("school login --scope 'openid courses:read'");
    }
  });

  it('accepts advertised scopes and skips the check when the server lists none', () => {
    expect(() => checkScopes(['openid', 'storage:write'], SUPPORTED)).not.toThrow();
    expect(() => checkScopes(['anything'], undefined)).not.toThrow();
  });
});

describe('"did you mean" with a hostile server', () => {
  it('suggests only plain scope names, never shell syntax, and shows the unknown scope escaped', () => {
    const supported = ['openid', 'courses:read;touch$IFS/tmp/pwned', 'courses:re$(id)', 'courses:rea`id`', 'courses:reed\u001b]52;c;x\u0007'];
    let err: unknown;
    try {
      checkScopes(['courses:reed\u001b[2J'], supported);
    } catch (e) {
      err = e;
    }
    const e = err as { message: string; hint?: string };
    expect(e.message).not.toContain('Did you mean');
    expect(e.message).toContain('courses:reed\\u{1b}[2J');
    expect(e.hint).not.toMatch(/[;$]|pwned|\u001b|`id`/);
  });

  it('still suggests the plain scope next to hostile ones', () => {
    expect(() => checkScopes(['courses:reed'], ['courses:read;x', 'courses:read'])).toThrow(/Did you mean "courses:read"\?/);
  });
});
