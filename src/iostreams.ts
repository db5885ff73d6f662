import type { Readable, Writable } from 'node:stream';
import type { Env } from './options.js';

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

export function colorWanted(isTTY: boolean, env: Env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

export function systemIO(env: Env): IOStreams {
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
