import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safePattern } from '../../src/mcp/safe-pattern.js';
import { toolSchema } from '../../src/mcp/schema.js';

describe('safePattern: the patterns of a description school mcp hands to a host', () => {
  it.each([
    '^[a-z0-9-]+$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^(jpg|png)$',
    '^[A-Z]{2}(-[A-Z]{2})?$',
    '^\\+?[0-9]{6}$',
    '^(ab)+',
    '^(?:jpg|png|gif|webp)$',
    'abc',
    '\\d{4}-\\d{2}',
    '^([a-z]+)$',
    '^(?:[a-z]{1}){3}$',
    '^\\p{L}+$',
    '^[\\u{1F600}-\\u{1F64F}]*$',
    '^[(+*)]+$',
    '^a{2}(b{1})*$',
    '^(?<year>\\d{4})$',
    '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$',
    '^#([0-9a-fA-F]{2}){3}$',
    '^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$',
  ])('hands on %s', (pattern) => {
    expect(safePattern(pattern)).toBe(true);
  });

  it.each([
    '^(a+)+$',
    '(a*)*',
    '(a|aa)+',
    '^(\\w+\\s?)+$',
    '^(([a-z])+.)+[A-Z]([a-z])+$',
    '(x+x+)+y',
    '(.*a){12}',
    '((ab)*c)+',
    '(?:a+?)+',
    '^(a|b|ab)*$',
    '(a*)\\1',
    '(?<x>a*)\\k<x>',
    '^(?:[a-z]{1,5}){2,}$',
    // A class that ends at once must not hide what follows it.
    '^[^](a+)+$',
    '^[](a+)+$|^(a+)+$',
    // Choices and optional parts deeper inside a repeated group.
    '^((a|aa))+$',
    '^(?:x?(?:a|aa))+$',
    '^(?:a?b?)+$',
    '^(?:\\w?\\d?)+$',
    '^((a|ab)(c|bc))+$',
    // Overlapping repetitions in a row: polynomial, of a high degree (unanchored: from every position too).
    '^a*a*a*a*a*a*a*a*a*a*a*a*$',
    '^\\w*\\d*\\w*\\d*\\w*\\d*\\w*$',
    'a*a*a*a*b',
    '.*.*.*.*!',
    '\\s*\\s*\\s*\\s*$',
    '(?=a*a*a*a*b)',
    'a{0,200}a{0,200}a{0,200}a{0,200}b',
    'a*a*a*b',
    // Two varying quantifiers, however far apart: quadratic at least, and worse unanchored.
    '.*.*=x',
    '^.*.*=x',
    '^\\+?[0-9 ]{6,20}$',
    '^.+@.+$',
    // One varying quantifier, but tried from every position: quadratic.
    '.*=x',
    '(ab)+',
    '[a-z]+$',
    'x^a+',
    // Anchored, but not the choice beside the anchor.
    '^a+|b+$',
    '^a$|(x|y)',
    // Three places to choose: choices multiply.
    '^(a|b)(c|d)e?$',
  ])('leaves out %s, which backtracks without end', (pattern) => {
    expect(safePattern(pattern)).toBe(false);
  });

  it('leaves out what is no pattern: not a string, too long, or not a Unicode regular expression', () => {
    expect(safePattern(42)).toBe(false);
    expect(safePattern('a'.repeat(1001))).toBe(false);
    expect(safePattern('(')).toBe(false);
    expect(safePattern('\\p{Nope}')).toBe(false);
  });

  it('every pattern it runs finishes quickly on a value crafted against repetition', () => {
    // Random patterns built from the pieces that backtrack: groups, choices and quantifiers.
    const piece = fc.constantFrom('a', 'b', '\\w', '.', '[ab]', '[^]', 'a?', 'a*', 'a+', 'a{2,}', 'a{1,3}', '(a', '(?:a', '(?:', ')', ')+', ')*', ')?', '){2,3}', '|', '\\s?');
    const pattern = fc.tuple(fc.boolean(), fc.array(piece, { minLength: 1, maxLength: 10 })).map(([anchored, parts]) => `${anchored ? '^' : ''}${parts.join('')}$`);
    const attack = `${'a'.repeat(5000)}!`;
    fc.assert(
      fc.property(pattern, (source) => {
        if (!safePattern(source)) return;
        const started = performance.now();
        new RegExp(source, 'u').test(attack);
        expect(performance.now() - started).toBeLessThan(200);
      }),
      { numRuns: 1000 },
    );
  });

  it('a pattern kept finishes at once on 100,000 characters; the one the host took 6 s over is not kept', () => {
    const value = 'a'.repeat(100_000);
    for (const source of ['^.*=x', '^[a-z0-9-]+$', '^(?:jpg|png)x*$', '^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$']) {
      expect(safePattern(source)).toBe(true);
      const started = performance.now();
      new RegExp(source, 'u').test(value);
      expect(performance.now() - started, source).toBeLessThan(200);
    }
    expect(safePattern('.*.*=x')).toBe(false);
  });

  it('a tool schema for a host keeps a pattern that finishes and drops one that backtracks, saying so', () => {
    expect(toolSchema({}, { type: 'string', pattern: '^[a-z]+$' })).toMatchObject({ type: 'string', pattern: '^[a-z]+$' });
    for (const pattern of ['^(a+)+$', '.*.*=x']) {
      const schema = toolSchema({}, { type: 'string', pattern, description: 'A code.' });
      expect(schema.pattern).toBeUndefined();
      expect(schema.description).toBe('Server\'s description: "A code." (The server\'s pattern for this value is left out: checking it could take a host too long.)');
    }
    expect(toolSchema({}, { type: 'string', pattern: '(a*)*' })).toEqual({ type: 'string', description: "The server's pattern for this value is left out: checking it could take a host too long." });
  });
});
