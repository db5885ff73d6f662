import { describe, expect, it } from 'vitest';
import { insufficientScopeError, readChallenge, stepUpCommand } from '../../src/auth/challenge.js';

describe('reading a protected resource challenge', () => {
  it('refreshes only for a Bearer invalid_token (or a bare Bearer) 401', () => {
    expect(readChallenge(401, 'Bearer error="invalid_token"').refresh).toBe(true);
    expect(readChallenge(401, 'Bearer realm="school"').refresh).toBe(true);
    expect(readChallenge(401, 'Basic realm="legacy"').refresh).toBe(false);
    expect(readChallenge(401, undefined).refresh).toBe(false);
    expect(readChallenge(401, 'Bearer error="invalid_request"').refresh).toBe(false);
  });

  it('reads the scopes of a 403 insufficient_scope', () => {
    expect(readChallenge(403, 'Bearer error="insufficient_scope", scope="courses:write students:write"').insufficientScope).toEqual(['courses:write', 'students:write']);
    expect(readChallenge(403, undefined).insufficientScope).toBeUndefined();
  });

  it('never lets a server-chosen scope inject shell syntax into the hint', () => {
    const hostile = 'Bearer error="insufficient_scope", scope="courses:write\\" $(touch /tmp/pwned) \\" `id` a\'b"';
    expect(readChallenge(403, hostile).insufficientScope).toEqual([]);
    const needed = readChallenge(403, 'Bearer error="insufficient_scope", scope="courses:write $(id) `id` a\'b"').insufficientScope!;
    expect(needed).toEqual(['courses:write']);
    const err = insufficientScopeError('HTTP 403', { profile: 'default', scope: 'openid courses:read', source: 'keychain' } as never, needed);
    expect(err.hint).toBe("Run: school login --scope 'openid courses:read courses:write'");
    expect(err.exitCode).toBe(4);
    expect(stepUpCommand({ profile: 'night', scope: 'openid $(x)' }, ['a:b'])).toBe("school login --profile night --scope 'openid a:b'");
  });
});
