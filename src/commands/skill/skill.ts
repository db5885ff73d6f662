import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Deps } from '../../deps.js';
import { CliError, UsageError } from '../../errors.js';
import type { GlobalOptions } from '../../options.js';
import { type LoadedDescription, loadApiDescription } from '../../session/api-description.js';
import { printable } from '../../util/printable.js';
import { commandTarget, defineCommand } from '../command.js';
import { MAX_LISTED, SKILL_MARKER, skillText } from './skill-text.js';

export interface SkillOptions extends GlobalOptions {
  /** `--install <dir>`: write `<dir>/school/SKILL.md` instead of printing it. */
  install?: string;
}

/** Each listed operation's example line, as `school api <operation> --help` shows it, by command name. */
async function exampleLines(loaded: LoadedDescription): Promise<Record<string, string>> {
  const [{ exampleArguments }, { operationFlags }, { accepter }] = await Promise.all([import('../api/help.js'), import('../api/flags.js'), import('../api/checks.js')]);
  // One budget for every example's checks: a description cannot make the skill slow.
  const accepts = accepter(5000);
  const details = await loaded.details();
  const out: Record<string, string> = {};
  for (const [i, op] of loaded.index.operations.slice(0, MAX_LISTED).entries()) {
    const detail = details[i];
    if (detail) out[op.command] = [`school api ${op.command}`, ...exampleArguments(op, detail, operationFlags(detail.fields), accepts)].join(' ');
  }
  return out;
}

async function run(deps: Deps, opts: SkillOptions): Promise<void> {
  const target = await commandTarget(deps, opts);
  if (!target.baseUrl) throw new UsageError('No base URL: pass --base-url, set SCHOOL_BASE_URL, or log in first.');
  const loaded = await loadApiDescription(deps, target.baseUrl);
  if (loaded.note) deps.io.err.write(`${printable(loaded.note)}\n`);
  const text = skillText({ baseUrl: target.baseUrl, operations: loaded.index.operations, examples: await exampleLines(loaded), profile: target.profile });
  if (opts.install === undefined) {
    deps.io.out.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  if (!opts.install) throw new UsageError('--install needs a directory, e.g. --install ~/.claude/skills');
  const dir = join(resolve(opts.install), 'school');
  const file = join(dir, 'SKILL.md');
  const existing = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
  // A skill the person wrote or changed under this name is theirs: never overwritten.
  if (existing !== undefined && !existing.includes(SKILL_MARKER)) {
    throw new CliError(`${printable(file)} exists and was not written by \`school skill\`: it is left as it is.`, {
      code: 'usage',
      hint: 'Move it away, or install into another directory.',
    });
  }
  await fs.mkdir(dir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o644 });
  await fs.chmod(temp, 0o644);
  await fs.rename(temp, file);
  deps.io.out.write(`${file}\n`);
  deps.io.err.write(`${existing === undefined ? 'Wrote' : 'Replaced'} the school skill (${loaded.index.operations.length} operations).\n`);
}

export const skillCommand = defineCommand<SkillOptions>({ name: 'skill', run });
