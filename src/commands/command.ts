import type { Command, OptionValues } from 'commander';
import type { Deps } from '../deps.js';
import { type GlobalOptions, targetInputs } from '../options.js';
import { type Target, resolveTarget } from '../session/target.js';

/**
 * One command: its name and help, the flags it registers, how commander's parsed values become
 * its typed options, and what it does with them.
 */
export interface CommandModule<O extends GlobalOptions> {
  name: string;
  description: string;
  /** Shown after the flags in `school <name> --help`. */
  examples?: string;
  hidden?: boolean;
  /** Registers the command's arguments and flags. */
  configure(cmd: Command): void;
  /** The typed options, from commander's values (globals included) and the positional arguments. */
  toOptions(raw: OptionValues, args: readonly string[]): O;
  run(deps: Deps, opts: O): Promise<void>;
}

/** A command with its options type erased, so that commands of every type fit in one list. */
export interface CommandEntry {
  name: string;
  description: string;
  examples?: string;
  hidden?: boolean;
  configure(cmd: Command): void;
  execute(makeDeps: (opts: GlobalOptions) => Deps, raw: OptionValues, args: readonly string[]): Promise<void>;
}

export function defineCommand<O extends GlobalOptions>(command: CommandModule<O>): CommandEntry {
  return {
    name: command.name,
    description: command.description,
    examples: command.examples,
    hidden: command.hidden,
    configure: (cmd) => command.configure(cmd),
    async execute(makeDeps, raw, args) {
      const opts = command.toOptions(raw, args);
      await command.run(makeDeps(opts), opts);
    },
  };
}

// Commander's values are untyped; these read one flag each, by the type the flag was declared with.
export function stringFlag(raw: OptionValues, name: string): string | undefined {
  const value: unknown = raw[name];
  return typeof value === 'string' ? value : undefined;
}

export function booleanFlag(raw: OptionValues, name: string): boolean {
  return raw[name] === true;
}

export function listFlag(raw: OptionValues, name: string): string[] | undefined {
  const value: unknown = raw[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** For repeatable flags: each use adds a value. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function globalOptions(raw: OptionValues): GlobalOptions {
  return { baseUrl: stringFlag(raw, 'baseUrl'), profile: stringFlag(raw, 'profile'), json: booleanFlag(raw, 'json'), verbose: booleanFlag(raw, 'verbose') };
}

/** The command's profile, base URL and credential source, decided by the one resolution every front-end uses. */
export function commandTarget(deps: Pick<Deps, 'state' | 'env'>, opts: GlobalOptions, extra: { anonymous?: boolean; profileMustExist?: boolean } = {}): Promise<Target> {
  return resolveTarget(deps.state, targetInputs(opts, deps.env, extra));
}
