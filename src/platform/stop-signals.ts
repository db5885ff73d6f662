import { ExitCode } from '../errors.js';

export interface StopSignal {
  signal: NodeJS.Signals;
  /** The exit status a run stopped by it ends with: 128 plus the signal's number, as shells report it. */
  exitCode: number;
}

/**
 * The signals that stop a run, each handled alike: waiting stops at once, but a refresh already
 * sent is waited for and its rotated tokens stored first. Closing the terminal sends SIGHUP (Node
 * raises it on Windows too when the console window closes); Ctrl-Break sends SIGBREAK on Windows.
 */
export function stopSignals(platform: NodeJS.Platform): StopSignal[] {
  const signals: StopSignal[] = [
    { signal: 'SIGINT', exitCode: ExitCode.interrupted },
    { signal: 'SIGTERM', exitCode: ExitCode.terminated },
    { signal: 'SIGHUP', exitCode: ExitCode.hangup },
  ];
  if (platform === 'win32') signals.push({ signal: 'SIGBREAK', exitCode: ExitCode.interrupted });
  return signals;
}
