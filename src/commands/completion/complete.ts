import type { Command } from 'commander';
import type { Deps } from '../../deps.js';
import { type GlobalOptions, checkProfileName } from '../../options.js';
import { isPlainPath, isPlainScope } from '../../util/plain-name.js';
import { commandTarget, defineCommand, globalOptions } from '../command.js';

export interface CompleteOptions extends GlobalOptions {
  kind: string;
}

function isPlainProfile(name: string): boolean {
  try {
    return checkProfileName(name) === name;
  } catch {
    return false;
  }
}

/**
 * A templated path (`/api/courses/{id}`) is no path to call: it is offered up to its first
 * parameter (`/api/courses/`), for the person to type the value.
 */
export function untemplated(path: string): string {
  const brace = path.indexOf('{');
  return brace === -1 ? path : path.slice(0, brace);
}

/**
 * Candidates for shell completion, one a line, from local files only: completion must never
 * wait on the network.
 */
async function run(deps: Deps, opts: CompleteOptions): Promise<void> {
  let out: string[] = [];
  try {
    const profiles = await deps.state.profiles();
    // A malformed --base-url on the line being typed is no reason to offer nothing.
    const baseUrl = (await commandTarget(deps, opts).catch(() => undefined))?.baseUrl;
    // Only plain names: a completion is inserted into a command line the user is about to run.
    if (opts.kind === 'profiles') out = Object.keys(profiles).filter(isPlainProfile).sort();
    else if (opts.kind === 'scopes') out = (await deps.state.cachedScopes(baseUrl)).filter(isPlainScope);
    else if (opts.kind === 'paths' && baseUrl) {
      const doc = await deps.state.cachedApiDescription(baseUrl);
      const paths = Object.keys(doc?.paths && typeof doc.paths === 'object' ? doc.paths : {});
      out = [...new Set(paths.map(untemplated))].filter((p) => p.length > 1 && isPlainPath(p)).sort();
    }
  } catch {
    out = []; // a broken config must not break the user's shell
  }
  if (out.length) deps.io.out.write(`${out.join('\n')}\n`);
}

// Used by the completion scripts; hidden from help.
export const completeCommand = defineCommand<CompleteOptions>({
  name: '__complete',
  description: 'completion candidates',
  hidden: true,
  configure(cmd: Command) {
    cmd.argument('<kind>', 'profiles, scopes or paths');
  },
  toOptions: (raw, args) => ({ ...globalOptions(raw), kind: args[0] ?? '' }),
  run,
});
