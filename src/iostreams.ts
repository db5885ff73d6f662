import { writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { ExitCode, errnoCode } from './errors.js';
import type { Env } from './types/env.js';

/** The three streams with what is known about them; data goes to `out`, everything else to `err`. */
export interface IOStreams {
  in: Readable;
  out: Writable;
  err: Writable;
  inIsTTY: boolean;
  outIsTTY: boolean;
  errIsTTY: boolean;
  /**
   * Writes a short piece of data (a token, a line of JSON) to stdout at once. The system version
   * writes straight to the descriptor unless `out` is already in use, so that `school token` never
   * makes process.stdout, which for a pipe means loading the net and stream modules.
   */
  writeOutSync(text: string): void;
  /** Colour on this stream: only on a TTY, NO_COLOR wins, FORCE_COLOR forces. */
  colorOn(stream: 'out' | 'err'): boolean;
}

function colorWanted(isTTY: boolean, env: Env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

const guarded = new Set<'stdout' | 'stderr'>();

/**
 * process.stdout or process.stderr, made on first use: making one is a module load (a pipe is a
 * net socket), which a run that never writes to it should not pay. A reader that closed the pipe
 * (`school call … | head`) has all it wants, so EPIPE ends the run quietly.
 */
export function processStream(name: 'stdout' | 'stderr'): NodeJS.WriteStream {
  const stream = process[name];
  if (!guarded.has(name)) {
    guarded.add(name);
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(ExitCode.ok);
      // A terminal that was closed (EIO): the SIGHUP that comes with it stops the run, once a
      // refresh already sent has been stored; what is written meanwhile has nowhere to go.
      if (err.code === 'EIO') return;
      throw err;
    });
  }
  return stream;
}

/** The process's streams, each made only when first used. */
export function systemIO(env: Env): IOStreams {
  return {
    get in() {
      return process.stdin;
    },
    get out() {
      return processStream('stdout');
    },
    get err() {
      return processStream('stderr');
    },
    get inIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    get outIsTTY() {
      return Boolean(processStream('stdout').isTTY);
    },
    get errIsTTY() {
      return Boolean(processStream('stderr').isTTY);
    },
    writeOutSync(text) {
      // Once the stream exists it carries everything, so that output stays in order.
      if (guarded.has('stdout')) {
        processStream('stdout').write(text);
        return;
      }
      const bytes = Buffer.from(text);
      let written = 0;
      try {
        while (written < bytes.length) written += writeSync(1, bytes, written);
      } catch (err) {
        if (errnoCode(err) === 'EPIPE') process.exit(ExitCode.ok);
        // A non-blocking descriptor that is full: the stream waits for it.
        if (errnoCode(err) !== 'EAGAIN') throw err;
        processStream('stdout').write(bytes.subarray(written));
      }
    },
    colorOn(s) {
      return colorWanted(Boolean(processStream(s === 'out' ? 'stdout' : 'stderr').isTTY), env);
    },
  };
}
