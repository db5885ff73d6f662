import type { IOStreams } from '../iostreams.js';

export interface Spinner {
  stop(): void;
}

/** A spinner on stderr, only on a TTY; elsewhere the text is printed once as a plain line. */
export async function startSpinner(io: IOStreams, text: string): Promise<Spinner> {
  if (!io.errIsTTY) {
    io.err.write(`${text}\n`);
    return { stop() {} };
  }
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: io.err as NodeJS.WriteStream, color: 'cyan', isEnabled: true, discardStdin: false }).start();
  return { stop: () => spinner.stop() };
}
