/**
 * Whether a `pattern` from a server's API description may go to an MCP host in a tool's input
 * schema: a string of at most 1000 characters that compiles as a Unicode regular expression, in
 * none of the shapes that make a backtracking engine take long on a value crafted for it. A host
 * checks a model's arguments against the schema with such an engine, has no time limit of its own
 * (unlike `school api`'s), and a hostile description must not be able to hang it.
 *
 * What is kept cannot backtrack badly: at most one quantifier whose count varies (`*`, `+`, `?`,
 * `{n,}`, `{n,m}`), at most two places to choose in all (that quantifier and groups of `|`), and,
 * when there is any choice, anchored at the start (`^`, with no `|` beside it): an unanchored
 * pattern is tried again from every position, so one `.*` is already quadratic (`.*.*=x` took 6 s
 * on 2,000 characters). A repeated group whose content can match in more than one way
 * (`(a+)+`, `(a|aa)+`) and a back reference are refused outright. A pattern left out leaves the
 * value unchecked by the host only: the server still checks it, and the schema's description
 * says the pattern was left out. Some harmless patterns are left out too (`^.+@.+$`): a schema
 * loses a hint, nothing is let through that the server would take.
 */
export function safePattern(pattern: unknown): pattern is string {
  return patternVerdict(pattern) === 'kept';
}

/** Why a pattern is not handed on: not one a host can check (`unreadable`), or `slow` to check; else `kept`. */
export function patternVerdict(pattern: unknown): 'kept' | 'unreadable' | 'slow' {
  if (typeof pattern !== 'string' || pattern.length > 1000) return 'unreadable';
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'unreadable';
  }
  return backtracksBadly(pattern) ? 'slow' : 'kept';
}

/** The most quantifiers whose count varies, and places to choose in all (those and groups of `|`). */
const MAX_VARYING_QUANTIFIERS = 1;
const MAX_CHOICE_POINTS = 2;

interface Group {
  /** Somewhere inside, at any depth: a quantifier whose count varies, or a `|`. */
  varies: boolean;
  /** A `|` directly inside (counted once as a place to choose). */
  alternates: boolean;
}

/** A quantifier at `at`: its length, whether its count varies, and whether it repeats (may match more than once). */
function quantifierAt(source: string, at: number): { length: number; varies: boolean; repeats: boolean } | undefined {
  const c = source[at];
  let q: { length: number; varies: boolean; repeats: boolean };
  if (c === '*' || c === '+') q = { length: 1, varies: true, repeats: true };
  else if (c === '?') q = { length: 1, varies: true, repeats: false };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
    q = { length: m[0].length, varies: max > min, repeats: max > 1 };
  } else return undefined;
  if (source[at + q.length] === '?') q.length += 1; // lazy: the same backtracking, in another order
  return q;
}

function backtracksBadly(source: string): boolean {
  const groups: Group[] = [{ varies: false, alternates: false }];
  let varying = 0;
  let choicePoints = 0;
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    let atomEnd = i + 1;
    let closed: Group | undefined;
    if (c === '\\') {
      const next = source[i + 1];
      if (next !== undefined && /[1-9k]/.test(next)) return true;
      // \u{…}, \p{…} and \P{…} hold braces that are no quantifier.
      const braced = /^\\[upP]\{[^}]*\}/.exec(source.slice(i));
      atomEnd = braced ? i + braced[0].length : i + 2;
    } else if (c === '[') {
      // A class ends at its first unescaped `]`: `[^]` and `[]` are whole classes.
      let j = i + 1;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      atomEnd = j + 1;
    } else if (c === '(') {
      groups.push({ varies: false, alternates: false });
      const prefix = /^\((?:\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(source.slice(i));
      i += prefix ? prefix[0].length : 1;
      continue;
    } else if (c === ')') {
      closed = groups.length > 1 ? groups.pop() : undefined;
      if (closed?.varies) groups[groups.length - 1].varies = true;
    } else if (c === '|') {
      const group = groups[groups.length - 1];
      group.varies = true;
      if (!group.alternates) choicePoints += 1;
      group.alternates = true;
      i += 1;
      continue;
    }
    const quantifier = quantifierAt(source, atomEnd);
    if (quantifier) {
      if (quantifier.repeats && closed?.varies) return true;
      if (quantifier.varies) {
        groups[groups.length - 1].varies = true;
        varying += 1;
        choicePoints += 1;
      }
    }
    if (varying > MAX_VARYING_QUANTIFIERS || choicePoints > MAX_CHOICE_POINTS) return true;
    i = atomEnd + (quantifier?.length ?? 0);
  }
  // Any choice at all, and the pattern must be tried from its start only.
  return choicePoints > 0 && (!source.startsWith('^') || groups[0].alternates);
}
