// Files made on Windows start with a byte-order mark: PowerShell 5.1 writes UTF-8 with one
// (Set-Content -Encoding UTF8, Out-File -Encoding utf8) and UTF-16LE with one by default (`>`).
// JSON.parse refuses the mark, and a server would receive it as part of the body.

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
const UTF16BE_BOM = Buffer.from([0xfe, 0xff]);

/** The text of UTF-16 bytes after their mark, or undefined when they are not text (odd length, broken pairs, NUL). */
function utf16Text(bytes: Buffer, littleEndian: boolean): string | undefined {
  const body = bytes.subarray(2);
  if (body.length % 2 !== 0) return undefined;
  const units = Buffer.from(body);
  if (!littleEndian) units.swap16();
  const text = units.toString('utf16le');
  return /[\u0000\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text) ? undefined : text;
}

/** A file read as text (`-F key=@file`): a UTF-8 mark dropped, UTF-16 with a mark decoded. */
export function decodeTextFile(bytes: Buffer): string {
  return bodyWithoutMark(bytes).toString('utf8');
}

/**
 * A raw body (`--input`), as UTF-8 without a byte-order mark when it is text that starts with
 * one; any other bytes (an image, a PDF) are sent exactly as read.
 */
export function bodyWithoutMark(bytes: Buffer): Buffer {
  if (bytes.subarray(0, 3).equals(UTF8_BOM)) return bytes.subarray(3);
  const le = bytes.subarray(0, 2).equals(UTF16LE_BOM);
  if (le || bytes.subarray(0, 2).equals(UTF16BE_BOM)) {
    const text = utf16Text(bytes, le);
    if (text !== undefined) return Buffer.from(text, 'utf8');
  }
  return bytes;
}
