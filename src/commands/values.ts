import { UsageError } from '../errors.js';
import { portProblem } from '../login/ports.js';
import { printable } from '../util/printable.js';
import { type ArgumentSpec, type CommandSpec, type FlagSpec, GLOBAL_FLAGS, type ValueKind, optionKey } from './table.js';

/** "a, b or c" */
function orList(words: readonly string[]): string {
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words.join('');
}

/** Words separated by commas or spaces, each once, in the order given. */
function splitList(raw: string | readonly string[]): string[] {
  const text = typeof raw === 'string' ? raw : raw.join(' ');
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/**
 * One value checked against its kind, as the command receives it: a number for seconds and whole
 * numbers, a list for lists. `label` names it in the message (`--timeout`, or an argument's name).
 * A bad value is a usage error (exit 2) that says what is expected.
 */
export function checkValue(label: string, kind: ValueKind, raw: string | readonly string[], isArgument = false): string | number | string[] {
  if (kind.type === 'list') return checkList(label, kind, raw);
  const text = typeof raw === 'string' ? raw : raw.join(' ');
  const invalid = (expected: string) => new UsageError(`${isArgument ? 'Unknown' : 'Invalid'} ${label} "${text}": ${expected}.`);
  switch (kind.type) {
    case 'string':
      return text;
    case 'enum':
      if (!kind.values.includes(text)) throw invalid(`use ${orList(kind.values)}`);
      return text;
    case 'seconds': {
      const trimmed = text.trim();
      const seconds = Number(trimmed);
      if (!/^\d+(\.\d+)?$/.test(trimmed) || !(seconds > 0) || seconds > kind.max) throw invalid(`use a number of seconds above 0 and at most ${kind.max}`);
      return seconds;
    }
    case 'integer': {
      const trimmed = text.trim();
      const n = Number(trimmed);
      if (/^\d+$/.test(trimmed) && kind.check === 'loopback-port' && n >= 1 && n <= 65535) checkLoopbackPort(label, n);
      if (!/^\d+$/.test(trimmed) || n < kind.min || n > kind.max) throw invalid(`use a whole number${kind.unit ? ` of ${kind.unit}` : ''} from ${kind.min} to ${kind.max}`);
      return n;
    }
  }
}

function checkList(label: string, kind: ValueKind & { type: 'list' }, raw: string | readonly string[]): string[] {
  const words = splitList(raw);
  if (kind.check !== 'scope-areas') return words;
  // Scope areas: the part of a scope before ":", as `school mcp --toolsets` offers them.
  const areas = [...new Set(words.map((w) => w.toLowerCase()))];
  if (!areas.length) throw new UsageError(`${label} needs scope areas, e.g. ${label} courses,students`);
  const bad = areas.find((a) => !/^[a-z0-9_.-]{1,64}$/.test(a));
  if (bad !== undefined) throw new UsageError(`Invalid ${label} "${printable(bad)}": name scope areas, the part of a scope before ":" (courses for courses:read).`);
  return areas;
}

/** A loopback port no browser redirect could reach is refused up front, with its own code. */
function checkLoopbackPort(label: string, port: number): void {
  const problem = portProblem(port);
  if (problem) {
    throw new UsageError(`Cannot use ${label} ${port}: ${problem}.`, {
      code: 'blocked_port',
      hint: `Choose a port from 1024 to 65535 that browsers allow (e.g. 8400), or omit ${label} for a free one.`,
    });
  }
}

type RawValues = Readonly<Record<string, unknown>>;

function given(raw: RawValues, key: string): string | string[] | undefined {
  const value = raw[key];
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return undefined;
}

/** A switch's value: `no-x` alone is true unless given; beside `x`, unset unless one of them is given. */
function switchValue(flag: FlagSpec, flags: readonly FlagSpec[], raw: RawValues): boolean | undefined {
  const key = optionKey(flag.name);
  const value = raw[key];
  if (!flag.name.startsWith('no-')) return value === true;
  if (flags.some((f) => f.name === key)) return typeof value === 'boolean' ? value : undefined;
  return value !== false;
}

function flagValue(flag: FlagSpec, raw: RawValues): unknown {
  const value = given(raw, optionKey(flag.name));
  if (value === undefined || !flag.value) return flag.default;
  const label = `--${flag.name}`;
  if (flag.value.type === 'list') return checkValue(label, flag.value, value);
  if (Array.isArray(value)) return flag.repeat ? value.map((v) => checkValue(label, flag.value!, v)) : checkValue(label, flag.value, value[value.length - 1] ?? '');
  return flag.repeat ? [checkValue(label, flag.value, value)] : checkValue(label, flag.value, value);
}

function argumentValue(arg: ArgumentSpec, value: string | undefined): unknown {
  if (value === undefined) return arg.required ? (arg.value ? checkValue(arg.name, arg.value, '', true) : '') : undefined;
  return arg.value ? checkValue(arg.name, arg.value, value, true) : value;
}

/**
 * A command's typed options from the parser's raw values (globals included) and its positional
 * arguments, each value checked as the table declares: what the full parser and the fast path both
 * hand to the command's `run`. Keys are the flags' names in camelCase, and the arguments' names.
 */
export function optionsFrom(spec: CommandSpec, raw: RawValues, args: readonly string[]): Record<string, unknown> {
  const opts: Record<string, unknown> = {};
  for (const flags of [GLOBAL_FLAGS, spec.flags]) {
    for (const flag of flags) {
      const key = optionKey(flag.name);
      // The `x` of a `x`/`no-x` pair is read with `no-x`.
      if (!flag.value && !flag.name.startsWith('no-') && flags.some((f) => f.name === `no-${flag.name}`)) continue;
      opts[key] = flag.value ? flagValue(flag, raw) : switchValue(flag, flags, raw);
    }
  }
  spec.args.forEach((arg, i) => {
    opts[arg.name] = argumentValue(arg, args[i]);
  });
  // What the parser did not know (further arguments and unknown flags), for the command to read itself.
  if (spec.passthrough) opts.argv = args.slice(spec.args.length);
  return opts;
}
