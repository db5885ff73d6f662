import { describe, expect, it } from 'vitest';
import { scopeNeeded } from '../../src/library/scope-needed.js';
import { parseChallenges } from '../../src/oauth/challenge.js';
import { readChallenges } from '../../src/oauth/challenge-header.js';

const HEADERS = [
  'Bearer error="insufficient_scope", scope="courses:write", resource_metadata="https://api.example/.well-known/oauth-protected-resource"',
  'Bearer realm="school", error="invalid_token", error_description="the token \\"expired\\""',
  'DPoP algs="ES256 PS256", error="insufficient_scope", scope="a:read b:write", Bearer error="insufficient_scope", scope="c:read"',
  'Basic realm="x", Bearer scope=courses:write, error=insufficient_scope',
  'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple"',
  'Bearer',
  'Bearer, DPoP algs="ES256"',
  'Basic dXNlcg==, Bearer scope="x:read"',
  'Bearer realm="unterminated',
  'Bearer scope=',
];

describe('the synchronous reading of WWW-Authenticate', () => {
  it.each(HEADERS)('reads %s as oauth4webapi does', async (header) => {
    const theirs = (await parseChallenges(header)).map((c) => ({ scheme: c.scheme, parameters: { ...c.parameters } }));
    expect(readChallenges(header)).toEqual(theirs);
  });

  it('never throws on a damaged header', () => {
    for (const header of ['Bearer realm="unterminated', '=,=,', 'Bearer scope=', ',,,', 'Basic dXNlcg==, Bearer scope="x:read"']) {
      expect(() => readChallenges(header)).not.toThrow();
    }
    expect(readChallenges('Basic dXNlcg==, Bearer scope="x:read"')).toEqual([
      { scheme: 'basic', parameters: {} },
      { scheme: 'bearer', parameters: { scope: 'x:read' } },
    ]);
    expect(readChallenges('Bearer realm="unterminated')).toEqual([]);
  });
});

const answer = (status: number, header?: string) => new Response(null, { status, headers: header ? { 'www-authenticate': header } : {} });

describe('scopeNeeded', () => {
  it('names the scopes of a 403 insufficient_scope and the command that adds them', () => {
    expect(scopeNeeded(answer(403, 'Bearer error="insufficient_scope", scope="courses:write students:write"'))).toEqual({
      scope: ['courses:write', 'students:write'],
      hint: 'school login --add-scope courses:write,students:write',
    });
  });

  it('reads the DPoP challenge of a bound token too', () => {
    expect(scopeNeeded(answer(403, 'DPoP algs="ES256", error="insufficient_scope", scope="courses:write"'))?.scope).toEqual(['courses:write']);
  });

  it.each([
    { name: 'a 200', res: answer(200) },
    { name: 'a 401 invalid_token', res: answer(401, 'Bearer error="invalid_token", scope="courses:write"') },
    { name: 'a 403 without a challenge', res: answer(403) },
    { name: 'a 403 for another reason', res: answer(403, 'Bearer error="invalid_request"') },
  ])('is undefined for $name', ({ res }) => {
    expect(scopeNeeded(res)).toBeUndefined();
  });

  it('passes on no scope that is not a plain name', () => {
    expect(scopeNeeded(answer(403, 'Bearer error="insufficient_scope", scope="courses:write $(rm -rf ~)"'))).toEqual({ scope: ['courses:write'], hint: 'school login --add-scope courses:write' });
  });
});
