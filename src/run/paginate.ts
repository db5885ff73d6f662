import { CliError } from '../errors.js';
import { MAX_BYTES, formatBytes } from '../http/client.js';
import { parsesAsJson } from '../util/json.js';

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
