// JSON a server (or a damaged file) hands the CLI: stored token sets, the config file, the OpenAPI
// listing, token lifetimes. Any input parses or is refused with a CliError; nothing crashes later
// (no "Invalid time value" when an expiry is shown).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listingOf } from '../helpers/described-server.js';
import { parseConfig } from '../../src/state/config-file.js';
import { MAX_LIFETIME_SECONDS, clampLifetime, parseTokenSet } from '../../src/state/token-set.js';
import { CliError } from '../../src/errors.js';
import { outcomeOf } from '../helpers/outcome.js';

const anyJson = fc.oneof(
  fc.jsonValue(),
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s as unknown),
);
const asText = (v: unknown) => (typeof v === 'string' && Math.random() < 0.5 ? v : (JSON.stringify(v) ?? 'null'));
const weirdNumber = fc.oneof(fc.double(), fc.constantFrom(1e300, -1e300, Number.MAX_VALUE, -0, 8.64e15, 1e309), fc.string({ maxLength: 6 }), fc.constant(null));

describe('server and file JSON', () => {
  it('a stored token set parses to sane times, or is refused with a CliError', () => {
    const tokenSetLike = fc.record(
      {
        accessToken: fc.oneof(fc.string(), fc.integer()),
        issuer: fc.oneof(fc.string(), fc.constant(null)),
        expiresAt: weirdNumber,
        obtainedAt: weirdNumber,
        refreshToken: fc.oneof(fc.string(), fc.integer()),
        scope: fc.oneof(fc.string(), fc.array(fc.string())),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(anyJson, tokenSetLike), (value) => {
        const parsed = outcomeOf(() => parseTokenSet(asText(value), 'the test store'));
        if (!parsed.ok) {
          expect(parsed.error).toBeInstanceOf(CliError);
          return;
        }
        const set = parsed.value;
        expect(typeof set.accessToken).toBe('string');
        if (set.expiresAt !== undefined) expect(Number.isNaN(new Date(set.expiresAt * 1000).getTime())).toBe(false);
        expect(Number.isFinite(set.obtainedAt)).toBe(true);
        if (set.scope !== undefined) expect(typeof set.scope).toBe('string');
      }),
      { numRuns: 5000 },
    );
  });

  it('expires_in is clamped to [0, one year] or unknown', () => {
    fc.assert(
      fc.property(fc.oneof(weirdNumber, anyJson), (v) => {
        const s = clampLifetime(v);
        if (s !== undefined) {
          expect(Number.isInteger(s)).toBe(true);
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(MAX_LIFETIME_SECONDS);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the config file parses or is refused with a CliError', () => {
    const configLike = fc.record(
      {
        version: fc.jsonValue(),
        profiles: fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.record({ baseUrl: fc.oneof(fc.string(), fc.integer()), issuer: fc.oneof(fc.string(), fc.integer()) }))),
        clients: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(anyJson, configLike), (value) => {
        const parsed = outcomeOf(() => parseConfig(asText(value), '/test/config.json'));
        if (!parsed.ok) {
          expect(parsed.error).toBeInstanceOf(CliError);
          return;
        }
        expect(typeof parsed.value.profiles).toBe('object');
        for (const p of Object.values(parsed.value.profiles)) expect(typeof p.baseUrl).toBe('string');
      }),
      { numRuns: 4000 },
    );
  });

  it('any OpenAPI document gives a listing of string paths and string scopes, never a crash', () => {
    const op = fc.oneof(
      fc.jsonValue(),
      fc.record(
        { summary: fc.jsonValue(), operationId: fc.jsonValue(), security: fc.oneof(fc.jsonValue(), fc.array(fc.dictionary(fc.string(), fc.oneof(fc.array(fc.jsonValue()), fc.jsonValue())))) },
        { requiredKeys: [] },
      ),
    );
    const doc = fc.record(
      { paths: fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.record({ get: op, post: op }, { requiredKeys: [] })))), security: fc.jsonValue() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(doc, fc.jsonValue()), (d) => {
        const ops = listingOf(d);
        for (const o of ops) {
          expect(typeof o.path).toBe('string');
          for (const s of o.scopes) expect(typeof s).toBe('string');
          if (o.summary !== undefined) expect(typeof o.summary).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
  });
});
