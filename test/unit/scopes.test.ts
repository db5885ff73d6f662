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
