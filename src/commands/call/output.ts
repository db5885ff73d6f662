import type { HttpResponse } from '../../http/client.js';
import type { IOStreams } from '../../iostreams.js';

function isJson(contentType: string | undefined): boolean {
  return /[/+]json\b/i.test(contentType ?? '');
}

export type JsonPrinter = (value: unknown) => string;

/** JSON for a person at a terminal: indented, and coloured when colour is on. Scripts get the bytes as they came. */
export async function terminalJson(io: IOStreams): Promise<JsonPrinter> {
  if (!io.colorOn('out')) return (value) => JSON.stringify(value, null, 2);
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return (value) => JSON.stringify(value, null, 2).replace(/("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g, (m, str, colon, lit, num) => {
    if (str) return colon ? `${c.blue(str)}${colon}` : c.green(str);
    if (lit) return c.yellow(lit);
    if (num) return c.cyan(num);
    return m;
  });
}

export async function writeResponse(io: IOStreams, res: HttpResponse, include: boolean): Promise<void> {
  if (include) {
    const lines = [`HTTP/${res.httpVersion} ${res.status} ${res.statusText}`];
    for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
    io.out.write(`${lines.join('\r\n')}\r\n\r\n`);
  }
  if (!res.body.length) return;
  if (io.outIsTTY && isJson(res.headers['content-type'])) {
    try {
      const value = JSON.parse(res.body.toString('utf8'));
      io.out.write(`${(await terminalJson(io))(value)}\n`);
      return;
    } catch {
      // not JSON after all: print as it came
    }
  }
  io.out.write(res.body);
  // On a terminal the next line (an error, the prompt) must not run into a body without a final
  // newline; piped output stays byte for byte what the server sent.
  if (io.outIsTTY && res.body[res.body.length - 1] !== 0x0a) io.out.write('\n');
}
