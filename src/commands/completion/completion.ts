import { readFile } from 'node:fs/promises';
import type { Deps } from '../../deps.js';
import { CliError, UsageError } from '../../errors.js';
import type { GlobalOptions } from '../../options.js';
import { defineCommand } from '../command.js';

export interface CompletionOptions extends GlobalOptions {
  shell: string;
}

// The scripts ship as plain files in the package's completions/ folder (users may also copy them
// from there), so the command prints those very files rather than a second copy kept in code.
const SCRIPTS: Record<string, string> = {
  bash: 'school.bash',
  zsh: '_school',
  fish: 'school.fish',
  powershell: 'school.ps1',
};

// Found from this module, never from the cwd. In the bundle this module is dist/cli.cjs; run from
// the sources it is src/commands/completion/completion.ts. Both lie inside the package.
const FOLDERS = ['../completions/', '../../../completions/'];

async function run(deps: Deps, opts: CompletionOptions): Promise<void> {
  const file = Object.hasOwn(SCRIPTS, opts.shell) ? SCRIPTS[opts.shell] : undefined;
  if (!file) throw new UsageError(`Unknown shell "${opts.shell}": use bash, zsh, fish or powershell.`);
  for (const folder of FOLDERS) {
    const url = new URL(folder + file, import.meta.url);
    let script: Buffer;
    try {
      script = await readFile(url);
    } catch (err) {
      if (err instanceof Error && 'code' in err && err.code === 'ENOENT') continue;
      throw err;
    }
    deps.io.out.write(script);
    return;
  }
  throw new CliError(`This installation of school has no completions/${file}: reinstall it.`, { code: 'missing_file' });
}

export const completionCommand = defineCommand<CompletionOptions>({ name: 'completion', run });
