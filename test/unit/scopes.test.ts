import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../helpers/outcome.js';
import { commandSpec } from '../../src/commands/table.js';
import { optionsFrom } from '../../src/commands/values.js';
import { checkScopes, defaultScopes, knownScopes, requestedScopes, suggestScope, withheldScopes } from '../../src/login/scopes.js';

const SUPPORTED = ['openid', 'profile', 'email', 'courses:read', 'courses:write', 'students:read', 'orders:read', 'storage:write'];

describe('scopes', () => {
  it('reads login --scope as space- and comma-separated lists, de-duplicated, across repeats', () => {
    expect(optionsFrom(commandSpec('login'), { scope: ['openid,profile', 'courses:read  openid'] }, []).scope).toEqual(['openid', 'profile', 'courses:read']);
  });

  it('defaults to identity scopes plus every advertised read scope', () => {
    expect(defaultScopes(SUPPORTED)).toEqual(['openid', 'profile', 'email', 'courses:read', 'students:read', 'orders:read']);
    expect(defaultScopes(undefined)).toEqual([]);
  });

  it('suggests the closest scope for a typo', () => {
    expect(suggestScope('cources:read', SUPPORTED)).toBe('courses:read');
    expect(suggestScope('orders:write', SUPPORTED)).toBe('orders:read');
    expect(suggestScope('zzzzzzzzzzzz', SUPPORTED)).toBeUndefined();
  });

  it('refuses unknown scopes with a usage error naming the suggestion', () => {
    expect(() => checkScopes(['openid', 'cources:read'], SUPPORTED)).toThrow(
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining('"cources:read"'),
        hint: 'school login --scope openid,courses:read',
      }),
    );
    expect(() => checkScopes(['openid', 'cources:read'], SUPPORTED)).toThrow('Did you mean "courses:read"?');
  });

  it('accepts advertised scopes and skips the check when the server lists none', () => {
    expect(() => checkScopes(['openid', 'storage:write'], SUPPORTED)).not.toThrow();
    expect(() => checkScopes(['anything'], undefined)).not.toThrow();
  });

  const OIDC = ['openid', 'profile', 'email', 'offline_access', 'courses:read', 'courses:write'];
  it.each([
    { name: 'defaults, with offline_access where advertised', asked: undefined, supported: OIDC, openId: true, sent: ['openid', 'offline_access', 'profile', 'email', 'courses:read'] },
    {
      name: 'defaults where offline_access is not advertised',
      asked: undefined,
      supported: SUPPORTED,
      openId: true,
      sent: ['openid', 'profile', 'email', 'courses:read', 'students:read', 'orders:read'],
    },
    { name: '--scope adds to openid and offline_access', asked: ['courses:write'], supported: OIDC, openId: true, sent: ['openid', 'offline_access', 'courses:write'] },
    { name: '--scope naming the base scopes repeats nothing', asked: ['openid', 'courses:write'], supported: OIDC, openId: true, sent: ['openid', 'offline_access', 'courses:write'] },
    { name: 'a plain OAuth 2.0 server: no openid', asked: undefined, supported: ['courses:read', 'courses:write'], openId: false, sent: ['courses:read'] },
    { name: 'no scope the CLI knows: nothing, so the parameter is left out', asked: undefined, supported: ['api', 'api.admin'], openId: false, sent: [] },
    { name: 'no scope list from an OpenID provider: nothing, so its default applies', asked: undefined, supported: undefined, openId: true, sent: [] },
    { name: 'no scope list from a plain OAuth 2.0 server: nothing', asked: undefined, supported: undefined, openId: false, sent: [] },
  ])('asks for $name', ({ asked, supported, openId, sent }) => {
    expect(requestedScopes(asked, supported, openId)).toEqual(sent);
  });

  it.each([
    {
      name: "the resource's read scopes beside the server's",
      supported: ['openid', 'profile', 'courses:read'],
      openId: true,
      more: { resource: ['students:read', 'students:write'] },
      sent: ['openid', 'profile', 'courses:read', 'students:read'],
    },
    {
      name: "the resource's list alone, an OpenID provider",
      supported: undefined,
      openId: true,
      more: { resource: ['courses:read', 'courses:write'] },
      sent: ['openid', 'profile', 'email', 'courses:read'],
    },
    { name: "the resource's list alone, a plain OAuth 2.0 server", supported: undefined, openId: false, more: { resource: ['courses:read'] }, sent: ['courses:read'] },
    {
      name: 'the scopes a challenge named',
      supported: ['openid', 'courses:read', 'courses:write'],
      openId: true,
      more: { challenge: ['courses:write'] },
      sent: ['openid', 'courses:read', 'courses:write'],
    },
    { name: 'a challenge alone', supported: undefined, openId: false, more: { challenge: ['courses:write'] }, sent: ['courses:write'] },
  ])('defaults to $name', ({ supported, openId, more, sent }) => {
    expect(requestedScopes(undefined, supported, openId, more)).toEqual(sent);
  });

  it("checks --scope against the server's and the resource's lists, not the resource's alone", () => {
    expect(knownScopes(['openid', 'courses:read'], { resource: ['students:read'] })).toEqual(['openid', 'courses:read', 'students:read']);
    expect(knownScopes(undefined, { resource: ['students:read'] })).toBeUndefined();
  });

  it.each([
    { name: 'no scope in the answer means all granted', asked: ['openid', 'courses:read'], granted: undefined, refresh: true, withheld: [] },
    { name: 'an API scope left out', asked: ['openid', 'courses:read', 'analytics:read'], granted: 'openid courses:read', refresh: true, withheld: ['analytics:read'] },
    { name: 'identity scopes an access token does not list', asked: ['openid', 'profile', 'email', 'courses:read'], granted: 'courses:read', refresh: true, withheld: [] },
    { name: 'offline_access judged by the refresh token, granted', asked: ['offline_access', 'courses:read'], granted: 'courses:read', refresh: true, withheld: [] },
    { name: 'offline_access judged by the refresh token, withheld', asked: ['offline_access', 'courses:read'], granted: 'courses:read offline_access', refresh: false, withheld: ['offline_access'] },
    { name: 'an empty granted scope withholds every API scope', asked: ['courses:read'], granted: '', refresh: false, withheld: ['courses:read'] },
  ])('withheld scopes: $name', ({ asked, granted, refresh, withheld }) => {
    expect(withheldScopes(asked, granted, refresh)).toEqual(withheld);
  });
});

describe('"did you mean" with a hostile server', () => {
  it('suggests only plain scope names, never shell syntax, and shows the unknown scope escaped', () => {
    const supported = ['openid', 'courses:read;touch$IFS/tmp/pwned', 'courses:re$(id)', 'courses:rea`id`', 'courses:reed\u001b]52;c;x\u0007'];
    const refused = outcomeOf(() => checkScopes(['courses:reed\u001b[2J'], supported));
    expect(refused.ok).toBe(false);
    const e = (refused.ok ? {} : refused.error) as { message: string; hint?: string };
    expect(e.message).not.toContain('Did you mean');
    expect(e.message).toContain('courses:reed\\u{1b}[2J');
    expect(e.hint).not.toMatch(/[;$]|pwned|\u001b|`id`/);
  });

  it('still suggests the plain scope next to hostile ones', () => {
    expect(() => checkScopes(['courses:reed'], ['courses:read;x', 'courses:read'])).toThrow(/Did you mean "courses:read"\?/);
  });
});
