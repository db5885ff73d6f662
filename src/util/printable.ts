/**
 * Server-supplied text (error descriptions, user names) reaches the terminal only without control
 * characters: an escape sequence from a server must not recolour, retitle or rewrite the screen.
 */
export function printable(text: string): string {
  // C0 controls except tab and newline, DEL, and C1 controls.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}
