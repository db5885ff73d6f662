import { buildIndex, definitionTable, detailFrom } from '../../src/api/api-index.js';
import { type ListingRow, listingRows } from '../../src/api/listing.js';
import { RESERVED } from '../../src/commands/api-own-flags.js';
import type { HttpClient, HttpRequest, HttpResponse } from '../../src/http/client.js';

/** A server of one API description at `/openapi.json`, its requests recorded (a fake HttpClient). */
export function describedServer(doc: unknown): { http: HttpClient; seen: HttpRequest[] } {
  const text = JSON.stringify(doc);
  const seen: HttpRequest[] = [];
  const http: HttpClient = {
    async request(req) {
      seen.push(req);
      const res: HttpResponse = {
        status: 200,
        statusText: '',
        headers: { 'cache-control': 'max-age=600', 'content-type': 'application/json' },
        rawHeaders: [],
        body: Buffer.from(text),
        url: String(req.url),
        httpVersion: '1.1',
      };
      return res;
    },
  };
  return { http, seen };
}

/** The words of a shell line as `shellWord` quotes them: plain words, or single-quoted with `'\''` inside. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quoted = false;
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === "'") quoted = false;
      else current += c;
    } else if (c === "'") {
      quoted = true;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      current += line[++i];
      inWord = true;
    } else if (c === ' ') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

/** `school api --json`'s rows for a description, made as the command makes them (from the index and its detail lines). */
export function listingOf(doc: unknown): ListingRow[] {
  const built = buildIndex(doc);
  const bytes = Buffer.from(built.detail);
  const range = (offset: number, length: number) => bytes.subarray(offset, offset + length).toString('utf8');
  const table = definitionTable(range(...built.definitions)) ?? [];
  const details = built.at.map((at) => detailFrom(range, at, table));
  return listingRows(
    built.operations.map((o, i) => ({ ...o, at: built.at[i] })),
    details,
    RESERVED,
  );
}
