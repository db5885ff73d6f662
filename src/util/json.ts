/** Whether the text is one JSON document, as `JSON.parse` reads it. */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
