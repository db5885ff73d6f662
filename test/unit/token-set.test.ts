import { describe, expect, it } from 'vitest';
import { lastsAtLeast, needsRefresh, refreshMarginSeconds } from '../../src/session/refresh-policy.js';
import { parseTokenSet, type TokenSet } from '../../src/state/token-set.js';

const base: TokenSet = { issuer: 'https://as.example', clientId: 'c', accessToken: 'at-0123456789', tokenType: 'bearer', obtainedAt: 1000, expiresAt: 4600 };

describe('refresh policy', () => {
  it('refreshes a minute early for long-lived tokens', () => {
    expect(refreshMarginSeconds(base)).toBe(60);
    expect(needsRefresh(base, 4539)).toBe(false);
    expect(needsRefresh(base, 4540)).toBe(true);
  });
  it('uses at most half the lifetime for short-lived tokens, so a fresh one is not refreshed again', () => {
    const short = { ...base, expiresAt: 1010 };
    expect(refreshMarginSeconds(short)).toBe(5);
    expect(needsRefresh(short, 1001)).toBe(false);
    expect(needsRefresh(short, 1006)).toBe(true);
  });
  it('refreshes a token that would not last the --min-ttl asked for', () => {
    expect(needsRefresh(base, 4000, 300)).toBe(false);
    expect(needsRefresh(base, 4400, 300)).toBe(true);
    expect(needsRefresh(base, 4300, 300)).toBe(true);
    expect(lastsAtLeast(base, 4299, 300)).toBe(true);
    expect(lastsAtLeast(base, 4300, 300)).toBe(false);
    expect(lastsAtLeast(base, 9999, 0)).toBe(true);
    expect(lastsAtLeast({ expiresAt: undefined }, 4301, 300)).toBe(true);
  });
  it('never refreshes a token without an expiry', () => {
    expect(needsRefresh({ ...base, expiresAt: undefined }, 999999)).toBe(false);
  });
  it('reports corrupted entries as an authentication problem without echoing them', () => {
    expect(() => parseTokenSet('{not json at-secret', 'the OS keychain')).toThrow(/corrupted/);
    expect(() => parseTokenSet('{"foo":1}', 'x')).toThrow(expect.objectContaining({ exitCode: 4 }));
  });
});
