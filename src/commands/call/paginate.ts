import { CliError } from '../../errors.js';
import { MAX_BYTES, formatBytes } from '../../http/client.js';
import { parsesAsJson } from '../../util/json.js';

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

/** The `rel="next"` target of a response, resolved against the URL that answered; rel holds space-separated types. */
export function nextLink(header: string | undefined, responseUrl: string | URL): URL | undefined {
  for (const link of parseLinkHeader(header)) {
    const rels = (link.params.rel ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes('next')) continue;
    try {
      return new URL(link.target, responseUrl);
    } catch {
      throw new CliError(`The server's Link header has an invalid next URL: ${link.target.slice(0, 80)}.`, { code: 'pagination_error' });
    }
  }
  return undefined;
}

/** More pages than any real listing has: a server that never stops is treated as a loop. */
export const MAX_PAGES = 10_000;

/**
 * Decides whether to follow a next link. The token goes only to the base URL's origin (scheme,
 * host and port), so a link elsewhere stops the listing; a URL already fetched is a loop.
 */
export function checkNextPage(next: URL, baseOrigin: string, fetched: ReadonlySet<string>, page: number): URL {
  if (next.origin !== baseOrigin) {
    throw new CliError(`page ${page}: the next link points to ${next.origin}, another origin than ${baseOrigin}; not following it.`, { code: 'pagination_error' });
  }
  const key = withoutFragment(next);
  if (fetched.has(key)) {
    throw new CliError(`page ${page}: the next link repeats ${next.pathname}${next.search}, already fetched; stopping to avoid a loop.`, { code: 'pagination_error' });
  }
  if (page > MAX_PAGES) {
    throw new CliError(`Stopped after ${MAX_PAGES} pages: the listing does not end.`, { code: 'pagination_error' });
  }
  return next;
}

export function withoutFragment(url: URL): string {
  const copy = new URL(url);
  copy.hash = '';
  return copy.toString();
}

/** Joins pages' JSON texts into one JSON array without re-encoding them (numbers keep their digits). */
export function slurpPages(pages: string[]): string {
  return `[${pages.map((p) => p.trim()).join(',')}]`;
}

/**
 * The pages `--slurp` holds in memory until the last one came. Each page is capped on its own by
 * the HTTP client; the pages together are capped as a whole, or a listing that never ends would
 * fill the memory.
 */
export class PageGatherer {
  private readonly pages: string[] = [];
  private bytes = 0;

  constructor(private readonly maxBytes: number = MAX_BYTES.body) {}

  add(body: Buffer, page: number): void {
    const text = body.toString('utf8');
    if (!parsesAsJson(text)) throw new CliError(`page ${page} is not JSON, so --slurp cannot put it in an array.`, { code: 'not_json' });
    this.bytes += body.length;
    if (this.bytes > this.maxBytes) {
      throw new CliError(`The pages gathered by --slurp pass ${formatBytes(this.maxBytes)} at page ${page}; stopped. Use --paginate without --slurp to stream them.`, {
        code: 'response_too_large',
      });
    }
    this.pages.push(text);
  }

  joined(): string {
    return slurpPages(this.pages);
  }
}
