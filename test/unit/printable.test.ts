import { describe, expect, it } from 'vitest';
import { describeUser } from '../../src/ui/user.js';
import { isPrintable, printable, printableLines } from '../../src/util/printable.js';

// Anything a terminal would act on: C0, DEL, C1, bidi controls and invisible format characters.
const UNSAFE_FOR_TERMINAL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe('server text on the terminal', () => {
  it('shows escape sequences (CSI, OSC 8 links, OSC 52 clipboard writes) as visible escapes', () => {
    const out = printable('bad \u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 \u001b]52;c;aGVsbG8=\u0007 \u009b2J');
    expect(out).toBe('bad \\u{1b}[31mred\\u{1b}[0m \\u{1b}]8;;https://evil.example\\u{7}link\\u{1b}]8;;\\u{7} \\u{1b}]52;c;aGVsbG8=\\u{7} \\u{9b}2J');
    expect(out).not.toMatch(UNSAFE_FOR_TERMINAL);
  });

  it('never passes a newline, carriage return or tab in one-line text, so no line can be forged', () => {
    expect(printable('ok\nschool: Logged in as admin\r\tx')).toBe('ok\\u{a}school: Logged in as admin\\u{d}\\u{9}x');
  });

  it('makes bidi controls and invisible format characters visible', () => {
    for (const ch of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', '\u200b', '\ufeff', '\u2028', '\u00ad']) {
      const out = printable(`a${ch}b`);
      expect(out).toBe(`a\\u{${ch.codePointAt(0)!.toString(16)}}b`);
      expect(isPrintable(out)).toBe(true);
    }
  });

  it('keeps ordinary text, accents, CJK and emoji as they are', () => {
    const text = 'Åsa Öberg — 数学 ✓ 🎓 courses:read /api/courses/{id}';
    expect(printable(text)).toBe(text);
    expect(isPrintable(text)).toBe(true);
  });

  it('shows a lone surrogate instead of passing broken UTF-16 on', () => {
    expect(printable('a\ud800b')).toBe('a\\u{d800}b');
  });

  it('keeps the lines and tabs of a multi-line body, nothing else', () => {
    expect(printableLines('line 1\r\n\tline 2 \u001b[2J\n\u202eevil')).toBe('line 1\n\tline 2 \\u{1b}[2J\n\\u{202e}evil');
  });

  it('cleans user names from userinfo', () => {
    expect(describeUser({ name: 'Ada\u001b[2J Lovelace', email: 'ada@example.edu' })).toBe('Ada\\u{1b}[2J Lovelace ada@example.edu');
  });
});
