import type { HttpResponse } from '../http/client.js';
import type { IOStreams } from '../iostreams.js';
import { printable, printableLines, terminalSafeJson } from '../util/printable.js';
import { importPackage } from '../util/require.js';

function isJson(contentType: string | undefined): boolean {
  return /[/+]json\b/i.test(contentType ?? '');
}

export type JsonPrinter = (value: unknown) => string;

/** JSON for a person at a terminal: indented, and coloured when colour is on. Scripts get the bytes as they came. */
export async function terminalJson(io: IOStreams): Promise<JsonPrinter> {
  // JSON escapes most control characters itself; terminalSafeJson also escapes C1, bidi and invisible ones.
  if (!io.colorOn('out')) return (value) => terminalSafeJson(value, 2);
  const { Chalk } = await importPackage<typeof import('chalk')>('chalk');
  const c = new Chalk({ level: 1 });
  return (value) =>
    terminalSafeJson(value, 2).replace(/("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g, (m, str, colon, lit, num) => {
      if (str) return colon ? `${c.blue(str)}${colon}` : c.green(str);
      if (lit) return c.yellow(lit);
      if (num) return c.cyan(num);
      return m;
    });
}

function isText(body: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
}

/** Writes an answer (its headers with `include`); says whether what it wrote ends a line (or nothing was written). */
export async function writeResponse(io: IOStreams, res: HttpResponse, include: boolean): Promise<boolean> {
  if (include) {
    // Headers as they came for a script; on a terminal, nothing in them may act on it.
    const shown = io.outIsTTY ? printable : (s: string) => s;
    const lines = [`HTTP/${res.httpVersion} ${res.status} ${shown(res.statusText)}`];
    for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${shown(res.rawHeaders[i])}: ${shown(res.rawHeaders[i + 1])}`);
    io.out.write(`${lines.join('\r\n')}\r\n\r\n`);
  }
  if (!res.body.length) return true;
  if (io.outIsTTY && isJson(res.headers['content-type'])) {
    try {
      const value = JSON.parse(res.body.toString('utf8'));
      io.out.write(`${(await terminalJson(io))(value)}\n`);
      return true;
    } catch {
      // not JSON after all: print as it came
    }
  }
  // A person at a terminal sees text with its controls made visible; a script gets the bytes as they came.
  if (io.outIsTTY && isText(res.body)) io.out.write(printableLines(res.body.toString('utf8')));
  else io.out.write(res.body);
  // The next line (an error, the prompt, the next page, a `read` in a script) must not run into a
  // body without a final newline: on a terminal always, and in a pipe or a file for a JSON body,
  // as `gh api` and `jq` end theirs. Any other body piped stays byte for byte what the server sent.
  if (res.body[res.body.length - 1] === 0x0a) return true;
  if (!io.outIsTTY && !isJson(res.headers['content-type'])) return false;
  io.out.write('\n');
  return true;
}
