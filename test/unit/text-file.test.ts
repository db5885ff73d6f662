import { describe, expect, it } from 'vitest';
import { bodyWithoutMark, decodeTextFile } from '../../src/util/text-file.js';

const utf8Bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
const utf16le = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string) => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);

describe('files written on Windows', () => {
  it('lose a UTF-8 byte-order mark, as text and as a body', () => {
    expect(decodeTextFile(utf8Bom('{"title":"Algèbre"}'))).toBe('{"title":"Algèbre"}');
    expect(bodyWithoutMark(utf8Bom('{"a":1}')).toString('utf8')).toBe('{"a":1}');
  });

  it('are read as text when UTF-16 with a mark (PowerShell 5.1 `>`), and sent as UTF-8', () => {
    expect(decodeTextFile(utf16le('{"title":"Algèbre 😀"}\r\n'))).toBe('{"title":"Algèbre 😀"}\r\n');
    expect(bodyWithoutMark(utf16le('[1, 2]'))).toEqual(Buffer.from('[1, 2]'));
    expect(bodyWithoutMark(utf16be('[1, 2]'))).toEqual(Buffer.from('[1, 2]'));
  });

  it('leave bytes that are not text as they are', () => {
    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x00, 0x01]); // odd length and NUL: not UTF-16 text
    expect(bodyWithoutMark(binary)).toEqual(binary);
    const brokenPair = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from([0x00, 0xd8, 0x41, 0x00])]);
    expect(bodyWithoutMark(brokenPair)).toEqual(brokenPair);
    expect(bodyWithoutMark(Buffer.from('plain'))).toEqual(Buffer.from('plain'));
  });
});
