import type { IOStreams } from '../iostreams.js';
import { importPackage } from '../util/require.js';

export interface Spinner {
  stop(): void;
  /** Prints a line (ending in a newline) above the spinner, which goes on. */
  note(line: string): void;
}

/** A spinner on stderr, only on a TTY; elsewhere the text is printed once as a plain line. */
export async function startSpinner(io: IOStreams, text: string): Promise<Spinner> {
  // The spinner erases its lines by the terminal's width; a terminal that reports no width (some
  // CI and `script` ptys) sends it into an endless erase loop that blocks everything, timeouts too.
  const columns = (io.err as { columns?: number }).columns;
  if (!io.errIsTTY || !columns) {
    io.err.write(`${text}\n`);
    return { stop() {}, note: (line) => io.err.write(line) };
  }
  const { default: ora } = await importPackage<typeof import('ora')>('ora');
  const spinner = ora({ text, stream: io.err as NodeJS.WriteStream, color: 'cyan', isEnabled: true, discardStdin: false }).start();
  return {
    stop: () => spinner.stop(),
    note(line) {
      spinner.clear();
      io.err.write(line);
      spinner.render();
    },
  };
}
