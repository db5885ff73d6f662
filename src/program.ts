import type { Command, CommanderError } from 'commander';
import { COMMAND_GROUPS, COMMANDS } from './commands/index.js';
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

Exit status: 0 ok, 1 failure, 2 usage error, 4 authentication needed, 130 interrupted, 143 terminated.

Examples:
  school login --base-url https://your-school.example
  school call /api/courses --jq '.courses[].title'
  school status --json
  school <command> --help`;

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
    .exitOverride(rethrowAsSentence('school'))
    // Each command's help lists the global flags it accepts too; set before the commands exist so they inherit it.
    .configureHelp({ showGlobalOptions: true })
    // Set before the subcommands exist so they inherit it: errors are reported once, by the caller.
    .configureOutput({
      writeOut: (s) => processStream('stdout').write(s),
      writeErr: (s) => processStream('stderr').write(s),
      outputError: () => undefined,
    })
    .addHelpText('after', ENVIRONMENT_HELP);

  const groupOf = new Map(COMMAND_GROUPS.flatMap((g) => g.commands.map((c) => [c, g.heading] as const)));
  for (const entry of COMMANDS) {
    const cmd = program.command(entry.name, { hidden: entry.hidden }).description(entry.description).exitOverride(rethrowAsSentence(`school ${entry.name}`));
    const heading = groupOf.get(entry);
    if (heading) cmd.helpGroup(heading);
    entry.configure(cmd);
    if (entry.examples) cmd.addHelpText('after', entry.examples);
    cmd.action(function (this: Command) {
      onResult(entry.execute(makeDeps, this.optsWithGlobals(), this.args));
    });
  }
  // Commander's own help command answers `school help bogus` with the whole help and success: this one says it is unknown.
  program
    .helpCommand(false)
    .command('help')
    .argument('[command]', 'the command to explain')
    .description('show help for a command')
    .helpGroup('Shell:')
    .exitOverride(rethrowAsSentence('school help'))
    .action((name: string | undefined) => {
      const target = name === undefined ? program : program.commands.find((c) => c.name() === name);
      if (!target) throw new UsageError(`Unknown command '${name}'. Run 'school --help'.`);
      target.outputHelp();
    });
  return program;
}

export function isCommanderError(err: unknown): err is CommanderError {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('commander.');
}

/** Commander's own parse errors are usage errors (exit 2); help and version are success. */
export function mapCommanderError(err: CommanderError): number | UsageError {
  if (isHelpOrVersion(err)) return ExitCode.ok;
  return parseErrorSentence(err, 'school');
}

function isHelpOrVersion(err: CommanderError): boolean {
  return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
}

/** Commander's exit callback for one command: help and version pass through, parse errors become sentences. */
function rethrowAsSentence(commandPath: string): (err: CommanderError) => never {
  return (err) => {
    throw isHelpOrVersion(err) ? err : parseErrorSentence(err, commandPath);
  };
}

/**
 * Commander's lower-case fragments ("error: unknown option '--bogus'") as sentences that name the
 * command and where its help is: `Unknown option '--bogus' for 'school login'. Run 'school login --help'.`
 */
export function parseErrorSentence(err: Pick<CommanderError, 'code' | 'message'>, commandPath: string): UsageError {
  const [first, ...rest] = err.message.replace(/^error:\s*/, '').split('\n');
  const suggestion = rest.join(' ').match(/Did you mean (?:one of )?(.+?)\?\)/)?.[1];
  const didYouMean = suggestion ? ` (did you mean ${suggestion.split(/,\s*/).map((s) => `'${s}'`).join(' or ')}?)` : '';
  const quoted = [...first.matchAll(/'([^']*)'/g)].map((m) => m[1]);
  const helpFor = err.code === 'commander.unknownCommand' ? 'school' : commandPath;
  let sentence: string;
  switch (err.code) {
    case 'commander.unknownOption':
      sentence = `Unknown option '${quoted[0]}' for '${commandPath}'${didYouMean}.`;
      break;
    case 'commander.unknownCommand':
      sentence = `Unknown command '${quoted[0]}'${didYouMean}.`;
      break;
    case 'commander.missingArgument':
      sentence = `'${commandPath}' needs the argument <${quoted[0]}>.`;
      break;
    case 'commander.optionMissingArgument':
      sentence = `The option '${quoted[0]}' of '${commandPath}' needs a value.`;
      break;
    case 'commander.excessArguments': {
      const counts = first.match(/Expected (\d+) arguments? but got (\d+)/);
      sentence = `Too many arguments for '${commandPath}'${counts ? ` (it takes ${counts[1]}, got ${counts[2]})` : ''}.`;
      break;
    }
    default:
      sentence = `${first.charAt(0).toUpperCase()}${first.slice(1).replace(/\.?$/, '.')}`;
  }
  return new UsageError(`${sentence} Run '${helpFor} --help'.`);
}
