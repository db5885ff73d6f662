// What a call did, for tests that accept either a value or a refusal: each branch asserts on its
// own, outside any catch, so a failed assertion is never taken for the refusal.

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function outcomeOf<T>(fn: () => T): Outcome<T> {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

export async function settled<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}
