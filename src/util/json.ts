/** Whether the text is one JSON document, as `JSON.parse` reads it. */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The JSON Schema type of a value: `integer` for a whole number, `array`, `null`, else its JavaScript type. */
export function jsonType(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : typeof value;
}
