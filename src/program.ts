import type { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands/index.js';
import type { Deps } from './deps.js';
import { ExitCode, UsageError } from './errors.js';
import { processStream } from './iostreams.js';
import { DEFAULT_PROFILE, type GlobalOptions } from './options.js';
import { requireCommonJs } from './util/require.js';
import { VERSION } from './version.js';

export type DepsFactory = (opts: GlobalOptions) => Deps;

const ENVIRONMENT_HELP = `
Environment:
  SCHOOL_BASE_URL, SCHOOL_PROFILE, SCHOOL_CONFIG_DIR, SCHOOL_TOKEN,
  SCHOOL_REFRESH_TOKEN + SCHOOL_CLIENT_ID (+ SCHOOL_CLIENT_SECRET), BROWSER,
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY, NO_COLOR, FORCE_COLOR

Exit status: 0 ok, 1 failure, 2 usage error, 4 authentication needed, 130 interrupted, 143 terminated.`;

/**
 * The command tree: the global flags and help, and each command as its module defines it. An
 * action hands the parsed values to its command and the run's promise to `onResult`.
 */
export function buildProgram(makeDeps: DepsFactory, onResult: (p: Promise<void>) => void): Command {
  // Loaded here, not at the top, so the bundled CLI only pays for it when the full parser runs.
  const commander: typeof import('commander') = requireCommonJs('commander');
  const { Command, Option } = commander;
  const program = new Command('school');
  program
    .description('Sign in to a school and script its API from the terminal.')
    .version(VERSION, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--base-url <url>', 'the school service origin (env SCHOOL_BASE_URL); remembered in the profile'))
    .addOption(new Option('--profile <name>', 'which account or school to use (env SCHOOL_PROFILE)').default(undefined, DEFAULT_PROFILE))
    .option('--json', 'structured output (and JSON errors on stderr)')
    .option('--verbose', 'trace HTTP on stderr, with every secret redacted')
    .showSuggestionAfterError(true)
    .exitOverride()
    // Set before the subcommands exist so they inherit it: errors are reported once, by the caller.
    .configureOutput({
      writeOut: (s) => processStream('stdout').write(s),
      writeErr: (s) => processStream('stderr').write(s),
      outputError: () => undefined,
    })
    .addHelpText('after', ENVIRONMENT_HELP);

  for (const entry of COMMANDS) {
    const cmd = program.command(entry.name, { hidden: entry.hidden }).description(entry.description);
    entry.configure(cmd);
    if (entry.examples) cmd.addHelpText('after', entry.examples);
    cmd.action(function (this: Command) {
      onResult(entry.execute(makeDeps, this.optsWithGlobals(), this.args));
    });
  }
  return program;
}

export function isCommanderError(err: unknown): err is CommanderError {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('commander.');
}

/** Commander's own parse errors are usage errors (exit 2); help and version are success. */
export function mapCommanderError(err: CommanderError): number | UsageError {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.ok;
  return new UsageError(err.message.replace(/^error:\s*/, ''));
}
