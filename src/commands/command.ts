import type { Deps } from '../deps.js';
import { type GlobalOptions, targetInputs } from '../options.js';
import { type Target, resolveTarget } from '../session/target.js';
import { type CommandSpec, commandSpec } from './table.js';
import { optionsFrom } from './values.js';

/**
 * One command: its row in the table (src/commands/table.ts: name, help, arguments and flags) and
 * what it does with the typed options made from that row.
 */
export interface CommandModule<O extends GlobalOptions> {
  /** The command's name in the table. */
  name: string;
  run(deps: Deps, opts: O): Promise<void>;
}

/** A command with its options type erased, so that commands of every type fit in one list. */
export interface CommandEntry {
  spec: CommandSpec;
  /** `raw`: the parser's values by option key (globals included); `args`: the positional arguments. */
  execute(makeDeps: (opts: GlobalOptions) => Deps, raw: Readonly<Record<string, unknown>>, args: readonly string[]): Promise<void>;
}

export function defineCommand<O extends GlobalOptions>(command: CommandModule<O>): CommandEntry {
  const spec = commandSpec(command.name);
  return {
    spec,
    async execute(makeDeps, raw, args) {
      // The table declares each option's key and type; the command's options interface names them.
      const opts = optionsFrom(spec, raw, args) as unknown as O;
      await command.run(makeDeps(opts), opts);
    },
  };
}

/** The command's profile, base URL and credential source, decided by the one resolution every front-end uses. */
export function commandTarget(deps: Pick<Deps, 'state' | 'env'>, opts: GlobalOptions, extra: { anonymous?: boolean; profileMustExist?: boolean } = {}): Promise<Target> {
  return resolveTarget(deps.state, targetInputs(opts, deps.env, extra));
}
