import type { Writable } from 'node:stream';
import type { Deps } from '../deps.js';
import { systemDeps } from '../deps-system.js';
import type { IOStreams } from '../iostreams.js';
import type { Env } from '../types/env.js';
import { requireCommonJs } from '../util/require.js';

/** A sink for the engine's notices: a library writes nothing to the process's streams. */
function discarding(): Writable {
  const { Writable: WritableStream }: typeof import('node:stream') = requireCommonJs('node:stream');
  return new WritableStream({ write: (_chunk, _encoding, done) => done() });
}

/** Streams that show nothing and read nothing; made only if something asks for them. */
function silentIO(): IOStreams {
  let sink: Writable | undefined;
  const sinkOnce = () => (sink ??= discarding());
  return {
    get in() {
      const { Readable }: typeof import('node:stream') = requireCommonJs('node:stream');
      return Readable.from([]);
    },
    get out() {
      return sinkOnce();
    },
    get err() {
      return sinkOnce();
    },
    inIsTTY: false,
    outIsTTY: false,
    errIsTTY: false,
    writeOutSync: () => undefined,
    colorOn: () => false,
  };
}

/** The real world for a library caller: its environment, the stores and lock the command line uses, no output. */
export function libraryDeps(env: Env = process.env): Deps {
  // Nothing aborts a library call from outside but its own deadlines.
  return systemDeps({ verbose: false, signal: new AbortController().signal, env, io: silentIO() });
}
