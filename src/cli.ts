import type { Deps } from './deps.js';
import { ExitCode, InterruptedError, describeError } from './errors.js';
import { processStream } from './iostreams.js';
import { fromOAuthError } from './oauth/oauth-errors.js';
import { stopSignals } from './platform/stop-signals.js';
import { refreshInFlight } from './session/refresh-in-flight.js';
import { reportRepairsTo } from './state/permissions.js';
import { printable, terminalSafeJson } from './util/printable.js';
import { redactText } from './util/redact.js';

/** Prints the one-line (or JSON) error and returns the exit code. The only place errors become exit codes. */
export function reportError(err: unknown, stderr: NodeJS.WritableStream, json: boolean): number {
  const report = describeError(fromOAuthError(err));
  const message = printable(redactText(report.message));
  // A hint may be a sentence and the commands that fix it, one per line: each line made safe alone.
  const hint = report.hint
    ? redactText(report.hint)
        .split('\n')
        .map((line) => printable(line))
        .join('\n')
    : undefined;
  if (json) {
    const body: Record<string, string> = { error: report.error, message };
    if (report.scope) body.scope = printable(report.scope);
    if (hint) body.hint = hint;
    stderr.write(`${terminalSafeJson(body)}\n`);
  } else {
    stderr.write(`school: ${message}\n`);
    if (hint) stderr.write(`${hint}\n`);
  }
  return report.exitCode;
}

function wantsJson(argv: string[]): boolean {
  return argv.includes('--json');
}

export async function main(argv: string[]): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  // The first signal decides the exit status (130 for Ctrl-C, 143 for SIGTERM, 129 for a hang-up).
  let stoppedWith: number | undefined;
  const stopCode = () => stoppedWith ?? ExitCode.interrupted;
  let toldAboutRefresh = false;
  const onStop = (exitCode: number, signal: NodeJS.Signals) => {
    interrupts += 1;
    stoppedWith ??= exitCode;
    // A sent refresh is waited for however often Ctrl-C is pressed, and when the terminal closed:
    // stopping before its answer is stored would lose the session the server has just rotated.
    if (refreshInFlight()) {
      // A closed terminal cannot show the message.
      if (!toldAboutRefresh && signal !== 'SIGHUP') processStream('stderr').write('Finishing the token refresh already sent, so the session is not lost; then stopping.\n');
      toldAboutRefresh = true;
    } else if (interrupts > 1) process.exit(stopCode());
    controller.abort();
  };
  const handlers = stopSignals(process.platform).map(({ signal, exitCode }) => [signal, () => onStop(exitCode, signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  // A credential file or dir made private on the way is said once, as a message of the command.
  reportRepairsTo((note) => processStream('stderr').write(`${note}\n`));

  const json = wantsJson(argv);
  try {
    const { fastPath } = await import('./fast-path.js');
    const fast = await fastPath(argv, controller.signal);
    if (fast !== undefined) return controller.signal.aborted ? stopCode() : fast;

    const [{ buildProgram, isCommanderError, mapCommanderError }, { systemDeps }] = await Promise.all([import('./program.js'), import('./deps-system.js')]);
    let pending: Promise<void> | undefined;
    const program = buildProgram(
      (opts): Deps => systemDeps({ verbose: Boolean(opts.verbose), signal: controller.signal }),
      (p) => (pending = p),
    );
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.ok;
    }
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (err) {
      if (isCommanderError(err)) {
        const mapped = mapCommanderError(err);
        if (typeof mapped === 'number') return mapped;
        return reportError(mapped, processStream('stderr'), json);
      }
      throw err;
    }
    if (pending) await pending;
    return controller.signal.aborted ? stopCode() : ExitCode.ok;
  } catch (err) {
    if (controller.signal.aborted) {
      reportError(new InterruptedError(), processStream('stderr'), json);
      return stopCode();
    }
    return reportError(err, processStream('stderr'), json);
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    processStream('stderr').write(`school: ${printable(redactText(err instanceof Error ? err.message : String(err)))}\n`);
    process.exitCode = ExitCode.failure;
  },
);
