import { describe, expect, it } from 'vitest';
import { parseChallenges, readChallengeHeader } from '../../src/oauth/challenge.js';
import { insufficientScopeError, stepUpCommand } from '../../src/session/step-up.js';

describe('WWW-Authenticate', () => {
  it('reads the Bearer challenge parameters (with oauth4webapi)', async () => {
    const [bearer] = await parseChallenges('Bearer error="insufficient_scope", scope="courses:write students:write", resource_metadata="https://s.example/.well-known/oauth-protected-resource"');
    expect(bearer).toMatchObject({
      scheme: 'bearer',
      parameters: { error: 'insufficient_scope', scope: 'courses:write students:write', resource_metadata: 'https://s.example/.well-known/oauth-protected-resource' },
    });
    const both = await parseChallenges('Basic realm="x", Bearer error=invalid_token');
    expect(both.find((c) => c.scheme === 'bearer')?.parameters).toEqual({ error: 'invalid_token' });
    expect(await parseChallenges(undefined)).toEqual([]);
  });
});

describe('reading a protected resource challenge', () => {
  it('refreshes only for a Bearer invalid_token (or a bare Bearer) 401', async () => {
    expect((await readChallengeHeader(401, 'Bearer error="invalid_token"')).refresh).toBe(true);
    expect((await readChallengeHeader(401, 'Bearer realm="school"')).refresh).toBe(true);
    expect((await readChallengeHeader(401, 'Basic realm="legacy"')).refresh).toBe(false);
    expect((await readChallengeHeader(401, undefined)).refresh).toBe(false);
    expect((await readChallengeHeader(401, 'Bearer error="invalid_request"')).refresh).toBe(false);
  });

  it('reads the scopes of a 403 insufficient_scope', async () => {
    expect((await readChallengeHeader(403, 'Bearer error="insufficient_scope", scope="courses:write students:write"')).insufficientScope).toEqual(['courses:write', 'students:write']);
    expect((await readChallengeHeader(403, undefined)).insufficientScope).toBeUndefined();
  });

  it('never lets a server-chosen scope inject shell syntax into the hint', async () => {
    const hostile = 'Bearer error="insufficient_scope", scope="courses:write\\" $(touch /tmp/pwned) \\" `id` a\'b"';
    expect((await readChallengeHeader(403, hostile)).insufficientScope).toEqual([]);
    const needed = (await readChallengeHeader(403, 'Bearer error="insufficient_scope", scope="courses:write $(id) `id` a\'b"')).insufficientScope!;
    expect(needed).toEqual(['courses:write']);
    const err = insufficientScopeError('HTTP 403', { profile: 'default', source: 'keychain' }, needed);
    expect(err.hint).toBe('school login --add-scope courses:write');
    expect(err.exitCode).toBe(4);
    expect(stepUpCommand({ profile: 'night' }, ['a:b', 'c:d', 'a:b'])).toBe('school login --profile night --add-scope a:b,c:d');
  });

  it('says plainly when the server named no usable scope, and offers no command to copy', () => {
    const err = insufficientScopeError('HTTP 403', { profile: 'default', source: 'keychain' }, []);
    expect(err.message).toBe('HTTP 403: the token lacks a scope the server did not name as a plain scope name.');
    expect(err.hint).toBe('Find the scope in `school call --list`, then add it:\nschool login --add-scope <scope>');
    expect(err.scope).toBeUndefined();
  });
});
