import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { COMMAND_TABLE } from '../../src/commands/table.js';
import { UsageError } from '../../src/errors.js';
import { buildProgram, parseErrorSentence } from '../../src/program.js';

function program(): Command {
  return buildProgram(
    () => {
      throw new Error('no command runs in these tests');
    },
    () => undefined,
  );
}

/** What `school <name> --help` prints, the text after the flags included. */
function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

async function parseError(argv: string[]): Promise<UsageError> {
  const err: unknown = await program()
    .parseAsync(argv, { from: 'user' })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (!(err instanceof UsageError)) throw new Error(`expected a usage error for ${argv.join(' ')}, got ${String(err)}`);
  return err;
}

const visible = COMMAND_TABLE.filter((c) => !c.hidden).map((c) => c.name);

describe('help that teaches', () => {
  it.each(visible)('school %s --help has examples with real command lines and the global flags', (name) => {
    const cmd = program().commands.find((c) => c.name() === name);
    if (!cmd) throw new Error(`no command ${name}`);
    const help = helpOf(cmd);
    const examples = help.slice(help.indexOf('\nExamples:\n'));
    expect(help).toContain('\nExamples:\n');
    // Every line of the section is a command line that runs school (possibly inside a pipeline).
    const lines = examples
      .split('\n')
      .slice(2)
      .filter((l) => l.startsWith('  '));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/school /);
    expect(lines.some((l) => new RegExp(`school ${name}\\b`).test(l))).toBe(true);
    const globals = help.slice(help.indexOf('Global Options:'));
    expect(help).toContain('Global Options:');
    for (const flag of ['--base-url', '--profile', '--json', '--verbose']) expect(globals).toContain(flag);
  });

  it('groups the commands of the top-level help under headings', () => {
    const help = helpOf(program());
    const headings = ['Sign in:', 'Use the API:', 'Inspect:', 'Shell:'];
    for (const h of headings) expect(help).toContain(`\n${h}\n`);
    expect(help).not.toContain('\nCommands:\n');
    const section = (h: string) => help.slice(help.indexOf(`\n${h}\n`)).split('\n\n')[0];
    expect(section('Sign in:')).toMatch(/\n {2}login /);
    expect(section('Use the API:')).toMatch(/\n {2}call /);
    expect(section('Inspect:')).toMatch(/\n {2}status /);
    expect(section('Shell:')).toMatch(/\n {2}completion /);
    expect(help).not.toContain('__complete');
  });
});

/** A shell line's words, quotes removed; an unquoted `|`, `>`, `#` or `)` ends the command. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'" || ch === '"') {
      const end = line.indexOf(ch, i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if ('|>#)'.includes(ch) && word === undefined) {
      break;
    } else word = (word ?? '') + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The school command line of an example: the line itself, or the one inside `$(…)` or `<(…)`. */
function exampleArgv(line: string): string[] {
  const inner = /[$<]\((school [^)]*)\)/.exec(line);
  const words = shellWords(inner ? inner[1] : line.replace(/^\s*\$\s/, ''));
  return words.slice(words.indexOf('school') + 1);
}

describe('the examples of every help', () => {
  const parsed = new Error('parsed');
  // Every example of a command that runs (`help` answers by itself, without deps).
  const examples = COMMANDS.flatMap((c) => c.spec.examples.filter((l) => l.includes('school ')).map((l) => [c.spec.name, l] as const));

  it.each(examples)('school %s: `%s` is accepted by the parser', async (_name, line) => {
    let result: Promise<void> | undefined;
    // Reaching the command's deps means the flags parsed and the command's own option checks passed.
    const p = buildProgram(
      () => {
        throw parsed;
      },
      (r) => (result = r),
    );
    await p.parseAsync(exampleArgv(line), { from: 'user' });
    await expect(result).rejects.toBe(parsed);
  });

  it('shows both ways to choose scopes at login', () => {
    const lines = examples.filter(([name]) => name === 'login').map(([, l]) => l);
    expect(lines).toContain('school login --add-scope courses:write    # the scopes the profile holds now, plus this one');
    expect(lines.some((l) => l.startsWith('school login --scope '))).toBe(true);
  });
});

describe('parser errors are sentences that point to the help', () => {
  it.each([
    [['login', '--bogus'], "Unknown option '--bogus' for 'school login'. Run 'school login --help'."],
    [['login', '--scopes', 'x'], "Unknown option '--scopes' for 'school login' (did you mean '--scope'?). Run 'school login --help'."],
    [['--bogus'], "Unknown option '--bogus' for 'school'. Run 'school --help'."],
    [['logni'], "Unknown command 'logni' (did you mean 'login'?). Run 'school --help'."],
    [['login', '--port'], "The option '--port <n>' of 'school login' needs a value. Run 'school login --help'."],
    [['whoami', 'me'], "Too many arguments for 'school whoami' (it takes 0, got 1). Run 'school whoami --help'."],
    [['completion'], "'school completion' needs the argument <shell>. Run 'school completion --help'."],
  ])('school %j', async (argv, message) => {
    const err = await parseError(argv);
    expect(err).toMatchObject({ code: 'usage', exitCode: 2, message });
  });

  it('turns any other commander error into a capitalised sentence with the help pointer', () => {
    const err = parseErrorSentence({ code: 'commander.conflictingOption', message: "error: option '--a' cannot be used with option '--b'" }, 'school call');
    expect(err.message).toBe("Option '--a' cannot be used with option '--b'. Run 'school call --help'.");
  });
});

describe('school help', () => {
  it('shows the help of a command, and refuses one that does not exist', async () => {
    let out = '';
    const p = program();
    for (const c of [p, ...p.commands]) c.configureOutput({ writeOut: (s) => (out += s) });
    await p.parseAsync(['help', 'doctor'], { from: 'user' });
    expect(out).toMatch(/^Usage: school doctor /);
    await expect(program().parseAsync(['help', 'bogus'], { from: 'user' })).rejects.toMatchObject({ code: 'usage', exitCode: 2, message: "Unknown command 'bogus'. Run 'school --help'." });
  });
});
