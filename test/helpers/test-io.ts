import { PassThrough } from 'node:stream';
import type { IOStreams } from '../../src/iostreams.js';

export interface TestIO extends IOStreams {
  stdout(): string;
  stderr(): string;
  /** Feed text to standard input. */
  write(text: string): void;
  endInput(): void;
}

/** Captured streams for tests, in the manner of a fake terminal. */
export function testIO(options: { tty?: boolean; inTTY?: boolean; color?: boolean } = {}): TestIO {
  const input = new PassThrough();
  const out = new PassThrough();
  const err = new PassThrough();
  let outText = '';
  let errText = '';
  out.on('data', (c: Buffer) => (outText += c.toString()));
  err.on('data', (c: Buffer) => (errText += c.toString()));
  const tty = options.tty ?? false;
  return {
    in: input,
    out,
    err,
    inIsTTY: options.inTTY ?? tty,
    outIsTTY: tty,
    errIsTTY: tty,
    writeOutSync: (t) => out.write(t),
    colorOn: () => options.color ?? false,
    stdout: () => outText,
    stderr: () => errText,
    write: (t) => input.write(t),
    endInput: () => input.end(),
  };
}
