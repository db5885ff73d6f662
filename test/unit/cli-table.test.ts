// The command table (src/commands/table.ts) is the one declaration of the command line: commander's
// tree, the fast path, the help, the completion scripts and docs/commands.md must all say what it says.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/index.js';
import { helpTopicText } from '../../src/commands/help-topics.js';
import { afterHelp, argumentSyntax, flagHelp, flagSyntax, flagWords } from '../../src/commands/syntax.js';
import { COMMAND_TABLE, type CommandSpec, type FlagSpec, GLOBAL_FLAGS, HELP_TOPICS, type ValueKind, optionKey } from '../../src/commands/table.js';
import { checkValue, optionsFrom } from '../../src/commands/values.js';
import type { Deps } from '../../src/deps.js';
import { parseFast } from '../../src/fast-path.js';
import { BACKGROUND_COMMAND } from '../../src/login/background.js';
import { buildProgram } from '../../src/program.js';
import { generatedFiles } from '../../scripts/reference/generate.js';

const ROOT = join(import.meta.dirname, '..', '..');

function program(
  onDeps: (opts: unknown) => never = () => {
    throw new Error('no command runs here');
  },
): { program: Command; pending: () => Promise<void> | undefined } {
  let pending: Promise<void> | undefined;
  const p = buildProgram(
    (opts): Deps => onDeps(opts),
    (r) => (pending = r),
  );
  return { program: p, pending: () => pending };
}

/** The options commander's tree hands the command for this argv (the command never runs). */
async function parsedByCommander(argv: string[]): Promise<Record<string, unknown>> {
  const stop = new Error('stop');
  let seen: Record<string, unknown> | undefined;
  const { program: p, pending } = program((opts) => {
    seen = opts as Record<string, unknown>;
    throw stop;
  });
  await p.parseAsync(argv, { from: 'user' });
  await pending()?.catch((e: unknown) => {
    if (e !== stop) throw e;
  });
  if (!seen) throw new Error(`no command ran for ${argv.join(' ')}`);
  return seen;
}

/** A value each kind accepts. */
function sample(kind: ValueKind): string {
  switch (kind.type) {
    case 'string':
      return 'text';
    case 'seconds':
      return '2.5';
    case 'integer':
      return String(kind.check === 'loopback-port' ? 8400 : kind.max);
    case 'enum':
      return kind.values[kind.values.length - 1];
    case 'list':
      return 'courses,students';
  }
}

/** The arguments a command needs, each a value it accepts. */
function sampleArgs(spec: CommandSpec): string[] {
  return spec.args.filter((a) => a.required || spec.fast).map((a) => (a.value ? sample(a.value) : `/api/${a.name}`));
}

/** What the options hold for the flag given once with `value` (a switch: given). */
function expected(flag: FlagSpec, value: string | undefined): unknown {
  if (!flag.value) return !flag.name.startsWith('no-');
  const checked = checkValue(`--${flag.name}`, flag.value, value ?? '');
  return flag.repeat && !Array.isArray(checked) ? [checked] : checked;
}

const withRunner = COMMAND_TABLE.filter((c) => c.name !== 'help');

describe("commander's tree is the table", () => {
  const { program: root } = program();
  const optionsOf = (cmd: Command) => cmd.options.map((o) => ({ syntax: o.flags, help: o.description, hidden: o.hidden, takesValue: o.required || o.optional }));
  const fromTable = (flags: readonly FlagSpec[]) => flags.map((f) => ({ syntax: flagSyntax(f), help: flagHelp(f), hidden: Boolean(f.hidden), takesValue: Boolean(f.value) }));

  it('has the global flags, --version and --help at the top', () => {
    expect(optionsOf(root).filter((o) => o.syntax !== '--version' && o.syntax !== '-h, --help')).toEqual(fromTable(GLOBAL_FLAGS));
    expect(root.options.map((o) => o.flags)).toEqual(expect.arrayContaining(['--version']));
  });

  it('has exactly the commands of the table, hidden where the table hides them', () => {
    expect(root.commands.map((c) => c.name())).toEqual(COMMAND_TABLE.map((c) => c.name));
    for (const spec of COMMAND_TABLE) {
      const cmd = root.commands.find((c) => c.name() === spec.name)!;
      expect((cmd as unknown as { _hidden: boolean })._hidden, spec.name).toBe(Boolean(spec.hidden));
      expect(cmd.description()).toBe(spec.description);
    }
  });

  it.each(COMMAND_TABLE.map((c) => [c.name, c] as const))('gives %s exactly its flags and arguments', (name, spec) => {
    const cmd = root.commands.find((c) => c.name() === name)!;
    expect(optionsOf(cmd)).toEqual(fromTable(spec.flags));
    expect(cmd.registeredArguments.map((a) => ({ name: a.name(), required: a.required, help: a.description }))).toEqual(spec.args.map((a) => ({ name: a.name, required: a.required, help: a.help })));
  });

  it('runs a command for every row but help, and has no command outside the table', () => {
    expect(COMMANDS.map((c) => c.spec.name).sort()).toEqual(withRunner.map((c) => c.name).sort());
    expect(COMMAND_TABLE.map((c) => c.name)).toContain(BACKGROUND_COMMAND);
  });

  it('declares each option key once per command, global flags included', () => {
    for (const spec of COMMAND_TABLE) {
      const keys = [...GLOBAL_FLAGS, ...spec.flags].map((f) => `${optionKey(f.name)}${f.name.startsWith('no-') ? '' : '+'}`);
      expect(new Set(keys).size, spec.name).toBe(keys.length);
      const words = [...GLOBAL_FLAGS, ...spec.flags].flatMap(flagWords);
      expect(new Set(words).size, spec.name).toBe(words.length);
      // Commander gives `x` the default true when `no-x` comes first; after it, unset unless given.
      for (const [i, flag] of spec.flags.entries()) {
        if (flag.name.startsWith('no-'))
          expect(
            spec.flags.findIndex((f) => f.name === flag.name.slice(3)),
            `${spec.name} --${flag.name}`,
          ).toBeLessThan(i);
      }
    }
  });
});

describe('what the parser hands each command is what the table declares', () => {
  const cases = withRunner.flatMap((spec) => [...GLOBAL_FLAGS, ...spec.flags].map((flag) => [spec.name, flag.name, spec, flag] as const));

  it.each(cases)('school %s --%s', async (_name, _flag, spec, flag) => {
    const value = flag.value ? sample(flag.value) : undefined;
    const argv = [spec.name, ...sampleArgs(spec), `--${flag.name}`, ...(value === undefined ? [] : [value])];
    const opts = await parsedByCommander(argv);
    expect(opts[optionKey(flag.name)]).toEqual(expected(flag, value));
    // Nothing but the table's keys (and the arguments' names).
    const keys = [...GLOBAL_FLAGS, ...spec.flags].map((f) => optionKey(f.name));
    // A command that reads its line itself also gets its words as written after its name (the global flags aside).
    const rest = spec.passthrough ? ['argv'] : [];
    expect(Object.keys(opts).sort()).toEqual([...new Set([...keys, ...spec.args.map((a) => a.name), ...rest])].sort());
    if (spec.passthrough) {
      const words = [...spec.args.map((a) => opts[a.name]).filter((v) => v !== undefined), ...(opts.argv as string[])];
      expect(words).toEqual(GLOBAL_FLAGS.includes(flag) ? argv.slice(1, -(value === undefined ? 1 : 2)) : argv.slice(1));
    }
  });

  it('hands a passthrough command the words and flags it alone knows, in order, and no other command', async () => {
    const passthrough = withRunner.filter((c) => c.passthrough);
    expect(passthrough.map((c) => c.name)).toEqual(['api', '__complete']);
    const api = await parsedByCommander(['api', 'create-course', 'x', '--title', 'Algebra', '--dry-run', '--seats=30', '--json']);
    expect(api).toMatchObject({ operation: 'create-course', argv: ['x', '--title', 'Algebra', '--dry-run', '--seats=30'], json: true });
    expect(await parsedByCommander(['api', 'create-course', '--help'])).toMatchObject({ operation: 'create-course', argv: ['--help'] });
    expect(await parsedByCommander(['__complete', 'api-values', 'list-courses', '--status'])).toMatchObject({ kind: 'api-values', argv: ['list-courses', '--status'] });
    for (const spec of withRunner.filter((c) => !c.passthrough)) {
      await expect(parsedByCommander([spec.name, ...sampleArgs(spec), '--bogus-flag']), spec.name).rejects.toMatchObject({ exitCode: 2 });
    }
  });

  it('checks values by their kind, with the usage exit code', async () => {
    for (const spec of withRunner) {
      for (const flag of spec.flags) {
        // Text, and lists of any words, take anything.
        if (!flag.value || flag.value.type === 'string' || (flag.value.type === 'list' && !flag.value.check)) continue;
        const argv = [spec.name, ...sampleArgs(spec), `--${flag.name}`, 'not-a-value!'];
        await expect(parsedByCommander(argv), argv.join(' ')).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining(`--${flag.name}`) });
      }
    }
    await expect(parsedByCommander(['completion', 'ksh'])).rejects.toMatchObject({ exitCode: 2, message: 'Unknown shell "ksh": use bash, zsh, fish or powershell.' });
  });

  it('applies a declared default, and leaves a flag without one unset', () => {
    expect(optionsFrom(COMMAND_TABLE.find((c) => c.name === 'call')!, {}, ['/api']).timeout).toBe(60);
    expect(optionsFrom(COMMAND_TABLE.find((c) => c.name === 'token')!, {}, []).minTtl).toBe(0);
    expect(optionsFrom(COMMAND_TABLE.find((c) => c.name === 'login')!, {}, []).timeout).toBeUndefined();
    expect(optionsFrom(COMMAND_TABLE.find((c) => c.name === 'login')!, {}, [])).toMatchObject({ browser: true, dpop: true, wait: undefined, device: false });
  });
});

describe('the fast path reads the table', () => {
  const fast = COMMAND_TABLE.filter((c) => c.fast);

  it('serves the commands the table marks, with every argument', () => {
    expect(fast.map((c) => c.name)).toEqual(['token', 'call']);
    for (const spec of fast) expect(parseFast([spec.name, ...sampleArgs(spec)]), spec.name).toBeDefined();
    for (const spec of COMMAND_TABLE.filter((c) => !c.fast)) expect(parseFast([spec.name, ...sampleArgs(spec)]), spec.name).toBeUndefined();
  });

  const cases = fast.flatMap((spec) => [...GLOBAL_FLAGS, ...spec.flags].map((flag) => [spec.name, flag.name, spec, flag] as const));

  it.each(cases)("school %s --%s: taken with the parser's options where the table allows it, else left to the parser", async (_name, _flag, spec, flag) => {
    const value = flag.value ? sample(flag.value) : undefined;
    const argv = [spec.name, ...sampleArgs(spec), `--${flag.name}`, ...(value === undefined ? [] : [value])];
    const taken = parseFast(argv);
    if (GLOBAL_FLAGS.includes(flag) || flag.fast) {
      expect(taken && 'opts' in taken ? taken.opts : undefined).toEqual(await parsedByCommander(argv));
      if (value !== undefined) expect(parseFast([spec.name, ...sampleArgs(spec), `--${flag.name}=${value}`])).toEqual(taken);
    } else expect(taken).toBeUndefined();
    if (flag.short) expect(parseFast([spec.name, ...sampleArgs(spec), `-${flag.short}`, ...(value === undefined ? [] : [value])])).toBeUndefined();
  });

  it('refuses a bad value of a fast flag as the parser does', async () => {
    const argv = ['token', '--min-ttl', 'soon'];
    const err = await parsedByCommander(argv).catch((e: unknown) => e);
    expect(() => parseFast(argv)).toThrow(err as Error);
  });
});

describe('the help is the table', () => {
  const { program: root } = program();
  const helpOf = (cmd: Command) => {
    let out = '';
    cmd.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
    cmd.outputHelp();
    return out;
  };
  const flat = (text: string) => text.replace(/\s+/g, ' ');

  it('lists every visible command under its group, and no hidden one', () => {
    const help = helpOf(root);
    for (const spec of COMMAND_TABLE) {
      if (spec.hidden) expect(help).not.toContain(spec.name);
      else expect(help.slice(help.indexOf(`\n${spec.group}\n`))).toMatch(new RegExp(`\\n  ${spec.name}\\b`));
    }
  });

  it.each(COMMAND_TABLE.filter((c) => !c.hidden).map((c) => [c.name, c] as const))('school %s --help: every flag with its help, the arguments, the details and examples', (name, spec) => {
    const help = helpOf(root.commands.find((c) => c.name() === name)!);
    for (const flag of spec.flags) expect(flat(help)).toContain(flat(`${flagSyntax(flag)} ${flagHelp(flag)}`));
    for (const flag of GLOBAL_FLAGS) expect(flat(help)).toContain(flat(`${flagSyntax(flag)} ${flagHelp(flag)}`));
    for (const arg of spec.args) expect(help).toContain(argumentSyntax(arg));
    expect(help.endsWith(`${afterHelp(spec)}\n`)).toBe(true);
  });

  it.each(HELP_TOPICS.map((t) => [t.name]))('school help %s prints the topic', async (name) => {
    let out = '';
    const { program: p } = program();
    p.configureOutput({ writeOut: (s) => (out += s) });
    await p.parseAsync(['help', name], { from: 'user' });
    expect(out).toBe(helpTopicText(name));
    expect(out.length).toBeGreaterThan(200);
  });
});

describe('the committed files made from the table', () => {
  const files = generatedFiles();

  it.each(Object.keys(files).map((f) => [f]))('%s is what the table makes (run `npm run build` to remake it)', (path) => {
    expect(readFileSync(join(ROOT, path), 'utf8')).toBe(files[path]);
  });

  it.each(Object.keys(files).map((f) => [f]))('%s names every visible command, flag and help topic', (path) => {
    const text = files[path];
    for (const spec of COMMAND_TABLE.filter((c) => !c.hidden)) {
      expect(text, spec.name).toContain(spec.name);
      for (const flag of spec.flags.filter((f) => !f.hidden)) expect(text, `${spec.name} --${flag.name}`).toContain(`${flag.name}`);
    }
    for (const flag of GLOBAL_FLAGS) expect(text).toContain(flag.name);
    for (const topic of HELP_TOPICS) expect(text).toContain(topic.name);
    for (const spec of COMMAND_TABLE.filter((c) => c.hidden)) expect(text).not.toContain(`${spec.name}-`);
  });
});
