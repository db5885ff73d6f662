import type { Command, CommanderError, Option as CommanderOption } from 'commander';
import { COMMANDS } from './commands/index.js';
import { helpTopicText } from './commands/help-topics.js';
import { afterHelp, argumentSyntax, flagHelp, flagSyntax } from './commands/syntax.js';
import { COMMAND_TABLE, ENVIRONMENT, type FlagSpec, GLOBAL_FLAGS, PROGRAM } from './commands/table.js';
import type { Deps } from './deps.js';
import { ExitCode, UsageError } from './errors.js';
import { processStream } from './iostreams.js';
import type { GlobalOptions } from './options.js';
import { requireCommonJs } from './util/require.js';
import { VERSION } from './version.js';

export type DepsFactory = (opts: GlobalOptions) => Deps;

/** `school --help` after the commands: the variables, the exit status, examples. */
function programAfterHelp(): string {
  const names: string[] = [];
  let line = ' ';
  for (const name of ENVIRONMENT.map((v) => v.name)) {
    if (line.length + name.length + 2 > 80) {
      names.push(line);
      line = ' ';
    }
    line += ` ${name},`;
  }
  names.push(line.replace(/,$/, ''));
  return `
Environment (what each means: school help environment):
${names.join('\n')}

Exit status: ${[...new Set(Object.values(ExitCode))].join(', ')} (school help exit-codes); --json error codes: school help errors.
${afterHelp({ examples: PROGRAM.examples })}`;
}

/** Collects each use of a repeated flag. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function addFlags(cmd: Command, flags: readonly FlagSpec[], Option: typeof CommanderOption): void {
  for (const flag of flags) {
    const option = new Option(flagSyntax(flag), flagHelp(flag));
    if (flag.repeat) option.argParser(collect);
    if (flag.hidden) option.hideHelp();
    cmd.addOption(option);
  }
}

/**
 * The command tree, configured from the table (src/commands/table.ts): the global flags and help,
 * each command's arguments and flags. An action hands the parsed values to its command and the
 * run's promise to `onResult`.
 */
export function buildProgram(makeDeps: DepsFactory, onResult: (p: Promise<void>) => void): Command {
  // Loaded here, not at the top, so the bundled CLI only pays for it when the full parser runs.
  const commander: typeof import('commander') = requireCommonJs('commander');
  const { Command, Option } = commander;
  const program = new Command(PROGRAM.name);
  program.description(PROGRAM.description).version(VERSION, `--${PROGRAM.version.name}`, PROGRAM.version.help).helpOption(`-${PROGRAM.help.short}, --${PROGRAM.help.name}`, PROGRAM.help.help);
  addFlags(program, GLOBAL_FLAGS, Option);
  program
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
    .addHelpText('after', programAfterHelp())
    // Commander's own help command answers `school help bogus` with the whole help and success: the table's says it is unknown.
    .helpCommand(false);

  const entries = new Map(COMMANDS.map((entry) => [entry.spec.name, entry]));
  for (const spec of COMMAND_TABLE) {
    const cmd = program
      .command(spec.name, { hidden: spec.hidden })
      .description(spec.description)
      .exitOverride(rethrowAsSentence(`school ${spec.name}`));
    if (spec.group) cmd.helpGroup(spec.group);
    for (const arg of spec.args) cmd.argument(argumentSyntax(arg), arg.help);
    addFlags(cmd, spec.flags, Option);
    // `--help` after an operation asks for that operation's help, which the command itself gives;
    // its own help stays `school help <command>` (and the command answers a bare `--help` too).
    if (spec.passthrough) cmd.allowUnknownOption().allowExcessArguments().helpOption(false);
    const after = afterHelp(spec);
    if (after) cmd.addHelpText('after', after);
    if (spec.name === 'help') {
      cmd.action((name: string | undefined) => showHelp(program, name));
      continue;
    }
    const entry = entries.get(spec.name);
    if (!entry) throw new Error(`The table's command "${spec.name}" has nothing to run.`);
    cmd.action(function (this: Command) {
      // A passthrough command reads its own line: its words as written after the command's name
      // (the program's view, before this command's flags were taken out), the globals aside.
      const args = spec.passthrough && this.parent ? this.parent.args.slice(1) : this.args;
      onResult(entry.execute(makeDeps, this.optsWithGlobals(), args));
    });
  }
  return program;
}

/** `school help [command|topic]`: the help of the program or a command, or a topic's text. */
function showHelp(program: Command, name: string | undefined): void {
  const topic = name === undefined ? undefined : helpTopicText(name);
  if (topic !== undefined) {
    (program.configureOutput().writeOut ?? ((s: string) => processStream('stdout').write(s)))(topic);
    return;
  }
  const target = name === undefined ? program : program.commands.find((c) => c.name() === name);
  if (!target) throw new UsageError(`Unknown command '${name}'. Run 'school --help'.`);
  target.outputHelp();
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
  const didYouMean = suggestion
    ? ` (did you mean ${suggestion
        .split(/,\s*/)
        .map((s) => `'${s}'`)
        .join(' or ')}?)`
    : '';
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
