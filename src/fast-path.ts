/**
 * Commands that scripts call in tight loops skip the full command parser. Anything this
 * recogniser is unsure about returns undefined and goes through the normal path.
 */
export async function fastPath(_argv: string[], _signal: AbortSignal): Promise<number | undefined> {
  return undefined;
}
