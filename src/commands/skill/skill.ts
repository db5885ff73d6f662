import { resolve } from 'node:path';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import type { GlobalOptions } from '../../options.js';
import { type LoadedDescription, loadApiDescription } from '../../session/api-description.js';
import { printable } from '../../util/printable.js';
import { commandTarget, defineCommand } from '../command.js';
import { installSkill } from './install.js';
import { MAX_LISTED, skillText } from './skill-text.js';

export interface SkillOptions extends GlobalOptions {
  /** `--install <dir>`: write `<dir>/school/SKILL.md` instead of printing it. */
  install?: string;
}

/** Each listed operation's example line, as `school api <operation> --help` shows it, by command name. */
async function exampleLines(loaded: LoadedDescription): Promise<Record<string, string>> {
  const [{ exampleArguments }, { operationFlags }, { accepter }] = await Promise.all([import('../api/help.js'), import('../api-own-flags.js'), import('../api/checks.js')]);
  // One budget for every example's checks: a description cannot make the skill slow.
  const accepts = accepter(5000);
  const out: Record<string, string> = {};
  for (const op of loaded.index.operations.slice(0, MAX_LISTED)) {
    // Examples the checks accept need the schemas they are checked against: each listed operation's own.
    const detail = await loaded.detail(op);
    if (detail) out[op.command] = [`school api ${op.command}`, ...exampleArguments(op, detail, operationFlags(detail.fields), accepts)].join(' ');
  }
  return out;
}

async function run(deps: Deps, opts: SkillOptions): Promise<void> {
  const target = await commandTarget(deps, opts);
  if (!target.baseUrl) throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.');
  const loaded = await loadApiDescription(deps, target.baseUrl, { target });
  if (loaded.note) deps.io.err.write(`${printable(loaded.note)}\n`);
  const text = skillText({ baseUrl: target.baseUrl, operations: loaded.index.operations, examples: await exampleLines(loaded), profile: target.profile });
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
