/** One link-value of an RFC 8288 `Link` header: its target and parameters (names in lower case). */
export interface WebLink {
  target: string;
  params: Record<string, string>;
}

/**
 * Parses a `Link` header (RFC 8288 §3). Commas inside `<…>` and inside quoted strings do not
 * split links; a malformed link-value is skipped rather than failing the whole header.
 */
export function parseLinkHeader(header: string | undefined): WebLink[] {
  const links: WebLink[] = [];
  if (!header) return links;
  let i = 0;
  const n = header.length;
  const skipSpace = () => {
    while (i < n && /[ \t]/.test(header[i]!)) i++;
  };
  while (i < n) {
    skipSpace();
    if (header[i] !== '<') {
      // Not a link-value: skip to the next comma outside quotes.
      let quoted = false;
      while (i < n && (quoted || header[i] !== ',')) {
        if (header[i] === '"' && header[i - 1] !== '\\') quoted = !quoted;
        i++;
      }
      i++;
      continue;
    }
    const close = header.indexOf('>', i);
    if (close < 0) break;
    const target = header.slice(i + 1, close).trim();
    i = close + 1;
    const params: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (header[i] !== ';') break;
      i++;
      skipSpace();
      const nameMatch = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(header.slice(i));
      if (!nameMatch) break;
      const name = nameMatch[0].toLowerCase();
      i += nameMatch[0].length;
      skipSpace();
      let value = '';
      if (header[i] === '=') {
        i++;
        skipSpace();
        if (header[i] === '"') {
          i++;
          while (i < n && header[i] !== '"') {
            if (header[i] === '\\' && i + 1 < n) i++;
            value += header[i];
            i++;
          }
          i++;
        } else {
          const token = /^[^;,\s]*/.exec(header.slice(i))![0];
          value = token;
          i += token.length;
        }
      }
      // The first occurrence of a parameter wins (RFC 8288 §3.4.1 for rel).
      if (!(name in params)) params[name] = value;
    }
    skipSpace();
    if (header[i] === ',') i++;
    links.push({ target, params });
  }
  return links;
}
