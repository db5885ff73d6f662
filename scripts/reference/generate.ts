// Writes the files made from the command table: the four completion scripts under completions/ and
// docs/commands.md. Run by the build (scripts/build.mjs); test/unit/cli-table.test.ts fails when the
// committed files differ from what this makes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bashScript } from './bash.js';
import { commandsDoc } from './commands-doc.js';
import { fishScript } from './fish.js';
import { powershellScript } from './powershell.js';
import { zshScript } from './zsh.js';

/** Each generated file, by its path from the repository's root, with its text. */
export function generatedFiles(): Record<string, string> {
  return {
    'completions/school.bash': bashScript(),
    'completions/_school': zshScript(),
    'completions/school.fish': fishScript(),
    'completions/school.ps1': powershellScript(),
    'docs/commands.md': commandsDoc(),
  };
}

/** Writes them under `root`, and returns the paths written. */
export function writeGenerated(root: string): string[] {
  const files = generatedFiles();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return Object.keys(files);
}
