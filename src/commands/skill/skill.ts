import { resolve } from 'node:path';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import type { GlobalOptions } from '../../options.js';
import { loadApiDescription } from '../../session/api-description.js';
import { printable } from '../../util/printable.js';
import { commandTarget, defineCommand } from '../command.js';
import { installSkill } from './install.js';
import { skillText } from './skill-text.js';

export interface SkillOptions extends GlobalOptions {
  /** `--install <dir>`: write `<dir>/school/SKILL.md` instead of printing it. */
  install?: string;
}

async function run(deps: Deps, opts: SkillOptions): Promise<void> {
  const target = await commandTarget(deps, opts);
  if (!target.baseUrl) throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.');
  const loaded = await loadApiDescription(deps, target.baseUrl, { target });
  if (loaded.note) deps.io.err.write(`${printable(loaded.note)}\n`);
  const text = skillText({ baseUrl: target.baseUrl, operations: loaded.index.operations, profile: target.profile });
  if (opts.install === undefined) {
    deps.io.out.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  if (!opts.install) throw new UsageError('--install needs a directory, e.g. --install ~/.claude/skills');
  const { file, replaced } = await installSkill(resolve(opts.install), text.endsWith('\n') ? text : `${text}\n`);
  deps.io.out.write(`${file}\n`);
  deps.io.err.write(`${replaced ? 'Replaced' : 'Wrote'} the school skill (${loaded.index.operations.length} operations).\n`);
}

export const skillCommand = defineCommand<SkillOptions>({ name: 'skill', run });
