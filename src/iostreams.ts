import type { Readable, Writable } from 'node:stream';
import { PassThrough } from 'node:stream';

/** The three streams with what is known about them; data goes to `out`, everything else to `err`. */
export interface IOStreams {
  in: Readable;
  out: Writable;
  err: Writable;
  inIsTTY: boolean;
  outIsTTY: boolean;
  errIsTTY: boolean;
  /** Colour on this stream: only on a TTY, NO_COLOR wins, FORCE_COLOR forces. */
  colorOn(stream: 'out' | 'err'): boolean;
}

export function colorWanted(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

export function systemIO(env: Record<string, string | undefined>): IOStreams {
  const inIsTTY = Boolean(process.stdin.isTTY);
  const outIsTTY = Boolean(process.stdout.isTTY);
  const errIsTTY = Boolean(process.stderr.isTTY);
  return {
    in: process.stdin,
    out: process.stdout,
    err: process.stderr,
    inIsTTY,
    outIsTTY,
    errIsTTY,
    colorOn: (s) => colorWanted(s === 'out' ? outIsTTY : errIsTTY, env),
  };
}

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
    colorOn: () => options.color ?? false,
    stdout: () => outText,
    stderr: () => errText,
    write: (t) => input.write(t),
    endInput: () => input.end(),
  };
}
