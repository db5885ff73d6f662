/**
 * Server-supplied text (client ids, scopes, API paths, error descriptions, reason phrases, user names,
 * trace bodies) reaches the terminal only through here: an escape sequence from a server must not
 * recolour, retitle, rewrite the screen or write the clipboard (OSC 52), a bidi control must not
 * reorder what the user reads, and a newline must not forge a line of its own.
 *
 * Nothing is dropped silently: every such character is shown as a visible `\u{…}` escape, so what was
 * sent stays readable and a sanitized text never contains a character the terminal would act on.
 */

// C0 controls, DEL, C1 controls; bidi embeddings, overrides and isolates; marks; other invisible
// format characters (zero-width, word joiner, BOM, soft hyphen, Mongolian vowel separator, tags,
// interlinear annotation, line and paragraph separators).
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return `\\u{${code.toString(16)}}`;
}

/** Text for one line: every control, bidi or invisible format character (newline and tab included) made visible. */
export function printable(text: string): string {
  return String(text).replace(UNSAFE, escapeChar);
}

/** Text for several lines (a trace body): newlines and tabs kept, everything else as `printable`. */
export function printableLines(text: string): string {
  return String(text)
    .split('\n')
    .map((line) => line.replace(/\r$/, '').split('\t').map(printable).join('\t'))
    .join('\n');
}

/** Whether a text has nothing a terminal would act on (the invariant `printable` guarantees). */
export function isPrintable(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return !found;
}

// What JSON.stringify leaves as it is but a terminal would act on: DEL, C1, bidi and format characters.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/**
 * JSON for a person or a script: the same value as JSON.stringify gives, with every character a
 * terminal would act on written as a `\uXXXX` escape (C0 controls JSON escapes itself).
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
