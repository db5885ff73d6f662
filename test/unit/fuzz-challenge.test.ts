// WWW-Authenticate comes from any server the CLI talks to: parsing it must never throw or hang,
// and the scopes it hands to a step-up hint must be plain names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readChallengeHeader } from '../../src/oauth/challenge.js';
import { stepUpCommand } from '../../src/session/step-up.js';
import { SAFE_SCOPE } from '../../src/util/plain-name.js';

const token = fc.stringMatching(/^[A-Za-z0-9_:./$;`'"\\ -]{0,20}$/);
const param = fc.tuple(
  fc.constantFrom('error', 'scope', 'error_description', 'realm', 'resource_metadata', 'x'),
  fc.oneof(
    token.map((t) => `"${t.replace(/["\\]/g, '\\$&')}"`),
    token,
    fc.string({ maxLength: 10 }),
  ),
);
const header = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .tuple(fc.constantFrom('Bearer', 'bearer', 'Basic realm="x", Bearer', 'DPoP', ''), fc.array(param, { maxLength: 6 }), fc.constantFrom(', ', ',', ' ,', ',,'))
    .map(([scheme, params, sep]) => `${scheme} ${params.map(([k, v]) => `${k}=${v}`).join(sep)}`),
  // Long runs of the characters the parser's patterns repeat over: a backtracking parser would hang here.
  fc.tuple(fc.constantFrom('Bearer ', 'Bearer scope="', ', '), fc.nat(5000), fc.constantFrom(' ', '\\', '"', ',', 'a=')).map(([head, n, ch]) => head + ch.repeat(n)),
);

describe('WWW-Authenticate through readChallengeHeader', () => {
  it('never throws, never hangs, and offers only plain scopes', async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(200, 400, 401, 403, 500), fc.option(header, { nil: undefined }), async (status, h) => {
        const outcome = await readChallengeHeader(status, h);
        expect(typeof outcome.refresh).toBe('boolean');
        for (const s of outcome.insufficientScope ?? []) expect(s).toMatch(SAFE_SCOPE);
        if (outcome.insufficientScope) {
          const cmd = stepUpCommand({ profile: 'default' }, outcome.insufficientScope);
          expect(cmd).toMatch(outcome.insufficientScope.length ? /^school login --add-scope [A-Za-z0-9_.:/,-]+$/ : /^school login$/);
        }
      }),
      { numRuns: 10000 },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
