import type { HttpResponse } from '../../http/client.js';
import type { IOStreams } from '../../iostreams.js';
import { printable, printableLines, terminalSafeJson } from '../../util/printable.js';

function isJson(contentType: string | undefined): boolean {
  return /[/+]json\b/i.test(contentType ?? '');
}

/** Pretty, coloured JSON for a person at a terminal; scripts get the bytes as they came. */
async function colourJson(value: unknown): Promise<string> {
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  const text = terminalSafeJson(value, 2);
  return text.replace(/("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g, (m, str, colon, lit, num) => {
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

export async function writeResponse(io: IOStreams, res: HttpResponse, include: boolean): Promise<void> {
  if (include) {
    // Headers as they came for a script; on a terminal, nothing in them may act on it.
    const shown = io.outIsTTY ? printable : (s: string) => s;
    const lines = [`HTTP/${res.httpVersion} ${res.status} ${shown(res.statusText)}`];
    for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${shown(res.rawHeaders[i])}: ${shown(res.rawHeaders[i + 1])}`);
    io.out.write(`${lines.join('\r\n')}\r\n\r\n`);
  }
  if (!res.body.length) return;
  if (io.outIsTTY && isJson(res.headers['content-type'])) {
    try {
      const value = JSON.parse(res.body.toString('utf8'));
      io.out.write(`${io.colorOn('out') ? await colourJson(value) : terminalSafeJson(value, 2)}\n`);
      return;
    } catch {
      // not JSON after all: print as it came
    }
  }
  // A person at a terminal sees text with its controls made visible; a script gets the bytes as they came.
  if (io.outIsTTY && isText(res.body)) {
    io.out.write(printableLines(res.body.toString('utf8')));
    return;
  }
  io.out.write(res.body);
}
