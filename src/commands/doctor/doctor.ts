import type { Deps } from '../../deps.js';
import { type Finding, type FindingStatus, diagnose } from '../../doctor/diagnose.js';
import { CliError } from '../../errors.js';
import { type GlobalOptions, targetInputs } from '../../options.js';
import { printable, terminalSafeJson } from '../../util/printable.js';
import { redactText } from '../../util/redact.js';
import { defineCommand } from '../command.js';
import { importPackage } from '../../util/require.js';

export type DoctorOptions = GlobalOptions;

const MARK: Record<FindingStatus, string> = { ok: 'ok', info: 'info', warning: 'warning', problem: 'PROBLEM' };

const AREA_TITLE: Record<Finding['area'], string> = {
  environment: 'Environment',
  files: 'Files',
  keychain: 'Keychain',
  server: 'Server',
  profile: 'Profile',
};

/** Server text reaches the report only as plain, redacted text. */
function clean(text: string): string {
  return printable(redactText(text));
}

function cleanFinding(f: Finding): Finding {
  return { ...f, message: clean(f.message), ...(f.fix === undefined ? {} : { fix: clean(f.fix) }), ...(f.subject === undefined ? {} : { subject: clean(f.subject) }) };
}

type Paint = (status: FindingStatus, text: string) => string;

/** Status words coloured by status, when colour is on for stdout. */
async function painter(deps: Deps): Promise<Paint> {
  if (!deps.io.colorOn('out')) return (_status, text) => text;
  const { Chalk } = await importPackage<typeof import('chalk')>('chalk');
  const c = new Chalk({ level: 1 });
  const colour: Record<FindingStatus, (text: string) => string> = { ok: c.green, info: c.dim, warning: c.yellow, problem: c.red };
  return (status, text) => colour[status](text);
}

/** The report for a person: one heading per area (and server or profile), one line per finding, its fix under it. */
function textReport(findings: Finding[], paint: Paint): string {
  const lines: string[] = [];
  let heading = '';
  for (const f of findings) {
    const title = `${AREA_TITLE[f.area]}${f.subject ? ` ${f.area === 'profile' ? `"${f.subject}"` : f.subject}` : ''}`;
    if (title !== heading) {
      if (heading) lines.push('');
      lines.push(title);
      heading = title;
    }
    lines.push(`  ${paint(f.status, MARK[f.status].padEnd(8))}${f.message}`);
    // Fixes come with warnings and problems only: a fact needs no fixing.
    if (f.fix && (f.status === 'warning' || f.status === 'problem')) lines.push(`  ${' '.repeat(8)}Fix: ${f.fix}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Checks the setup end to end; the report goes to stdout, and any problem makes the exit code 1. */
async function run(deps: Deps, opts: DoctorOptions): Promise<void> {
  const findings = (await diagnose(deps, targetInputs(opts, deps.env))).map(cleanFinding);
  const problems = findings.filter((f) => f.status === 'problem').length;
  const warnings = findings.filter((f) => f.status === 'warning').length;
  if (opts.json) deps.io.out.write(`${terminalSafeJson({ ok: problems === 0, problems, warnings, findings }, 2)}\n`);
  else deps.io.out.write(textReport(findings, await painter(deps)));
  if (problems) {
    throw new CliError(`Found ${problems} problem${problems > 1 ? 's' : ''}${warnings ? ` and ${warnings} warning${warnings > 1 ? 's' : ''}` : ''}; each has its fix in the report.`, {
      code: 'problems_found',
    });
  }
  if (!opts.json) deps.io.err.write(warnings ? `No problems; ${warnings} warning${warnings > 1 ? 's' : ''}.\n` : 'No problems found.\n');
}

export const doctorCommand = defineCommand<DoctorOptions>({ name: 'doctor', run });
