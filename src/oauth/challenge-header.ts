/**
 * A synchronous reading of a WWW-Authenticate header (RFC 9110 §11.6.1), for the classifier of
 * the API's answers (session/answer-problem.ts), which must answer at once for the library's
 * `scopeNeeded(response)` and answers alike for every front-end. The API client's refresh
 * decisions and discovery read the header with oauth4webapi (challenge.ts), whose parser is
 * reachable only through its asynchronous requests; test/unit/challenge-header.test.ts checks
 * that both read the same headers alike.
 */

export interface HeaderChallenge {
  /** Lower-case, as oauth4webapi gives it. */
  scheme: string;
  /** Parameter names lower-case; quoted values unescaped. */
  parameters: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;
const PARAM_START = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]*=[ \t]*["!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/** The challenges of a header; none at all for a header that cannot be read to its end (never throws). */
export function readChallenges(header: string | null | undefined): HeaderChallenge[] {
  const out: HeaderChallenge[] = [];
  let rest = header ?? '';
  const skip = (pattern: RegExp) => {
    rest = rest.replace(pattern, '');
  };
  const param = (): [string, string] | undefined => {
    const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*=[ \t]*/.exec(rest);
    if (!m) return undefined;
    const after = rest.slice(m[0].length);
    if (after.startsWith('"')) {
      const q = /^"((?:[^"\\]|\\.)*)"/.exec(after);
      if (!q) return undefined;
      rest = after.slice(q[0].length);
      return [m[1].toLowerCase(), q[1].replace(/\\(.)/g, '$1')];
    }
    const t = TOKEN.exec(after);
    if (!t) return undefined;
    rest = after.slice(t[0].length);
    return [m[1].toLowerCase(), t[0]];
  };
  for (;;) {
    skip(/^[ \t,]+/);
    const scheme = TOKEN.exec(rest);
    if (!scheme) return out;
    rest = rest.slice(scheme[0].length);
    const challenge: HeaderChallenge = { scheme: scheme[0].toLowerCase(), parameters: {} };
    out.push(challenge);
    if (!/^[ \t]+/.test(rest)) continue;
    skip(/^[ \t]+/);
    // A token68 (`Basic dXNlcg==`) instead of parameters: '=' is no token character, so a
    // parameter is told apart by the value after its '='. Kept as no parameters.
    if (!PARAM_START.test(rest)) {
      const t68 = TOKEN68.exec(rest);
      if (t68) rest = rest.slice(t68[0].length);
      if (rest !== '' && !/^[ \t]*,/.test(rest)) return [];
      continue;
    }
    for (;;) {
      const p = param();
      // A header that cannot be read to its end is not read at all, as oauth4webapi does.
      if (!p) return [];
      challenge.parameters[p[0]] = p[1];
      skip(/^[ \t]*/);
      if (rest === '') return out;
      if (!rest.startsWith(',')) return [];
      // A comma, then either another parameter of this challenge or the next challenge's scheme.
      const afterComma = rest.replace(/^[ \t,]+/, '');
      if (!PARAM_START.test(afterComma)) break;
      rest = afterComma;
    }
  }
}
