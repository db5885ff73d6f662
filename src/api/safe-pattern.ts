/**
 * Whether a `pattern` from a server's API description is one `school` may run on a value: a string
 * of at most 1000 characters that compiles as a Unicode regular expression and cannot backtrack
 * without end.
 *
 * JavaScript's regular expressions backtrack. A pattern that repeats a group which itself repeats
 * (`(a+)+`, `(\w+\s?)*`), or repeats a choice (`(a|aa)+`), or refers back to a group (`(a*)\1`),
 * can take exponential time on a value crafted for it, so a hostile description could hang
 * `school api` or a host checking a tool's input. Such a pattern is left out: the value is not
 * checked against it here, and the server, which owns it, still is.
 */
export function safePattern(pattern: unknown): pattern is string {
  if (typeof pattern !== 'string' || pattern.length > 1000) return false;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return false;
  }
  return !backtracksWithoutEnd(pattern);
}

interface Group {
  /** A quantifier that repeats (`*`, `+`, `{n,}`, `{n,m}` with m > 1) stands somewhere inside. */
  repeats: boolean;
  /** A `|` stands directly inside. */
  chooses: boolean;
}

/** A quantifier at `at`: its length, and whether it repeats (more than once); undefined if none starts there. */
function quantifierAt(source: string, at: number): { length: number; repeats: boolean } | undefined {
  const c = source[at];
  let length = 0;
  let repeats = false;
  if (c === '*' || c === '+') [length, repeats] = [1, true];
  else if (c === '?') length = 1;
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
    if (!m) return undefined;
    length = m[0].length;
    repeats = m[2] !== undefined ? m[3] === '' || Number(m[3]) > 1 : Number(m[1]) > 1;
  } else return undefined;
  if (source[at + length] === '?') length += 1; // lazy: the same backtracking, other order
  return { length, repeats };
}

/** Nested repetition, a repeated choice, or a back reference: the shapes that backtrack exponentially. */
function backtracksWithoutEnd(source: string): boolean {
  const groups: Group[] = [{ repeats: false, chooses: false }];
  let closed: Group | undefined;
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    let atomEnd = i + 1;
    closed = undefined;
    if (c === '\\') {
      const next = source[i + 1];
      if (next !== undefined && /[1-9k]/.test(next)) return true;
      // \u{…}, \p{…}, \P{…} hold braces that are no quantifier.
      const braced = /^\\(?:u|p|P)\{[^}]*\}/.exec(source.slice(i));
      atomEnd = braced ? i + braced[0].length : i + 2;
    } else if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j += 1;
      if (source[j] === ']') j += 1;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      atomEnd = j + 1;
    } else if (c === '(') {
      groups.push({ repeats: false, chooses: false });
      const prefix = /^\((?:\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(source.slice(i));
      i += prefix ? prefix[0].length : 1;
      continue;
    } else if (c === ')') {
      closed = groups.length > 1 ? groups.pop() : undefined;
      if (closed?.repeats) groups[groups.length - 1].repeats = true;
    } else if (c === '|') {
      groups[groups.length - 1].chooses = true;
      i += 1;
      continue;
    }
    const quantifier = quantifierAt(source, atomEnd);
    if (quantifier?.repeats) {
      if (closed && (closed.repeats || closed.chooses)) return true;
      groups[groups.length - 1].repeats = true;
    }
    i = atomEnd + (quantifier?.length ?? 0);
  }
  return false;
}
