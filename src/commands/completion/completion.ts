import { readFile } from 'node:fs/promises';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import type { GlobalOptions } from '../context.js';

// The scripts ship as plain files in the package's completions/ folder (users may also copy them
// from there), so the command prints those very files rather than a second copy kept in code.
// Resolved from this module, not the cwd: dist/commands/completion/ → the package root.
const SCRIPTS: Record<string, string> = {
  bash: 'school.bash',
  zsh: '_school',
  fish: 'school.fish',
};

export async function completionRun(deps: Deps, opts: { args?: unknown[] } & GlobalOptions): Promise<void> {
  const shell = String(opts.args?.[0] ?? '');
  const file = Object.hasOwn(SCRIPTS, shell) ? SCRIPTS[shell] : undefined;
  if (!file) throw new UsageError(`Unknown shell "${shell}": use bash, zsh or fish.`);
  deps.io.out.write(await readFile(new URL(`../../../completions/${file}`, import.meta.url)));
}
