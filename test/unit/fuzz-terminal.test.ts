// Property-based tests of what stands between server text and the terminal: the sanitizer, the
// JSON writer and redaction. Inputs are biased towards the characters that matter (controls,
// escapes, bidi and format characters, surrogates) mixed with ordinary text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPrintable, printable, printableLines, terminalSafeJson } from '../../src/util/printable.js';
import { REDACTED, redactBody, redactText, registerSecret } from '../../src/util/redact.js';

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

const nasty = fc.constantFrom(
  '\u001b',
  '\u001b[2J',
  '\u001b]52;c;aGk=\u0007',
  '\u009b',
  '\u0085',
  '\r',
  '\n',
  '\t',
  '\u0000',
  '\u007f',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u061c',
  '\ufeff',
  '\u2028',
  '\ud800',
  '\udc00',
  '\ud83c\udf93',
);
const hostileText = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), nasty, fc.string({ maxLength: 8 })), { maxLength: 12 }).map((parts) => parts.join(''));

describe('sanitizer invariants', () => {
  it('printable never lets a control, bidi or format character through, and never throws', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const out = printable(text);
        expect(out).not.toMatch(UNSAFE);
        expect(isPrintable(out)).toBe(true);
        expect(out).not.toContain('\n');
      }),
      { numRuns: 8000 },
    );
  });

  it('printable is the identity on text that has nothing to escape', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        if (isPrintable(text)) expect(printable(text)).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  it('printableLines keeps only newlines and tabs', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const out = printableLines(text);
        expect(out.replace(/[\n\t]/g, '')).not.toMatch(UNSAFE);
      }),
      { numRuns: 4000 },
    );
  });

  it('terminalSafeJson gives back the same value with nothing a terminal acts on', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(hostileText, hostileText, { maxKeys: 4 }), (value, strings) => {
        const doc = { value, strings };
        const text = terminalSafeJson(doc, 2);
        // Newlines are the indentation's own; everything else a terminal acts on is escaped.
        expect(text.replace(/\n/g, '')).not.toMatch(UNSAFE);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(doc)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('redaction invariants', () => {
  const secret = fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 40 }).filter((s) => !s.includes(REDACTED) && s.trim().length >= 8);

  it('a registered secret never survives redactText, wherever it sits in the text', () => {
    fc.assert(
      fc.property(secret, hostileText, hostileText, fc.nat(3), (s, before, after, copies) => {
        registerSecret(s);
        const text = [before, ...Array.from({ length: copies + 1 }, () => s), after].join('');
        expect(redactText(text)).not.toContain(s);
      }),
      { numRuns: 2500 },
    );
  });

  it('a registered secret never survives redactBody, in JSON, a form or plain text, under any field name', () => {
    fc.assert(
      fc.property(secret, fc.string({ maxLength: 12 }), fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', undefined), (s, name, type) => {
        registerSecret(s);
        const bodies = [JSON.stringify({ [name]: s, nested: [{ [name]: `${s}!` }] }), `${encodeURIComponent(name)}=${encodeURIComponent(s)}`, `x ${s} y`];
        for (const body of bodies) {
          const out = redactBody(body, type);
          expect(out).not.toContain(s);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
