import { CliError, UsageError } from '../errors.js';
import { printableLines } from '../util/printable.js';
import type { JsonPrinter } from './output.js';
import { parsesAsJson } from '../util/json.js';
import { importPackage } from '../util/require.js';
import { stopSignals } from '../platform/stop-signals.js';

/** A compiled-once view of a jq expression; jq itself (WebAssembly) is loaded only when --jq is used. */
export interface JqFilter {
  /** Runs the filter on one JSON text; results as `gh api --jq` prints them, each on its own line. */
  apply(jsonText: string, what?: string): string;
}

/**
 * Prints jq's compact output (`-c`: one result per line) as `gh api --jq` does: a string result
 * raw, without quotes; any other value as JSON, compact for scripts or indented when `pretty`
 * (a person at a terminal, who sees a string's controls made visible). Each result ends with a newline.
 */
export function formatJqResults(compactStdout: string, pretty?: JsonPrinter): string {
  if (compactStdout === '') return '';
  let out = '';
  for (const line of compactStdout.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('"')) {
      const text = String(JSON.parse(line));
      out += `${pretty ? printableLines(text) : text}\n`;
    } else if (pretty) out += `${pretty(JSON.parse(line))}\n`;
    else out += `${line}\n`;
  }
  return out;
}

/** jq quotes the value it failed on, which comes from the server: a message stays a short line. */
const MAX_JQ_MESSAGE = 300;

/** The first line of jq's message without its `jq: error…:` prefix. */
export function jqMessage(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.trim() !== '') ?? 'jq failed';
  const first = line.length > MAX_JQ_MESSAGE ? `${line.slice(0, MAX_JQ_MESSAGE)}…` : line;
  return first
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '')
    .replace(/^jq: /, '')
    .trim()
    .replace(/:$/, '');
}

/** jq reports a bad expression with exit status 3 (compile error). */
const JQ_COMPILE_ERROR = 3;

const STOP_SIGNALS = stopSignals(process.platform).map((s) => s.signal);

/**
 * jq runs synchronously, and a filter can run for ever (`repeat(.)`). The CLI's signal handlers
 * need the event loop, which jq holds, so while jq runs the signals get their default action
 * back: Ctrl-C stops `school` as it would stop jq (exit 130).
 */
function interruptible<T>(run: () => T): T {
  const saved = STOP_SIGNALS.map((signal) => [signal, process.listeners(signal)] as const);
  for (const [signal, listeners] of saved) for (const listener of listeners) process.off(signal, listener);
  try {
    return run();
  } finally {
    for (const [signal, listeners] of saved) for (const listener of listeners) process.on(signal, listener);
  }
}

const invalidExpression = (stderr: string) => new UsageError(`Invalid --jq expression: ${jqMessage(stderr).replace(/\.?$/, '.')}`, { code: 'invalid_jq' });

/**
 * Loads jq and checks the expression before any request is sent, so a typo costs no round trip.
 * jq has no compile-only mode: the check compiles the expression inside a branch that never runs
 * (running it on a made-up input could loop for ever, as `until(.done; .next)` does on null).
 */
export async function compileJq(expression: string, pretty?: JsonPrinter): Promise<JqFilter> {
  const { loadJq } = await importPackage<typeof import('jq-wasm')>('jq-wasm');
  const jq = await loadJq();
  const flags = ['-c', '-M'];
  // The newline ends a trailing `# comment` before the closing parenthesis.
  const check = jq.raw(null, `if false then (${expression}\n) else empty end`, flags);
  if (check.exitCode === JQ_COMPILE_ERROR) {
    // The same expression alone fails to compile too, before running anything, and says where.
    const alone = jq.raw(null, expression, flags);
    throw invalidExpression(alone.exitCode === JQ_COMPILE_ERROR ? alone.stderr : check.stderr.replace(/ at <top-level>, line \d+, column \d+/, ''));
  }
  return {
    apply(jsonText, what = 'The response') {
      // No body at all (204, HEAD) has nothing to filter, which is not an error.
      if (jsonText.trim() === '') return '';
      if (!parsesAsJson(jsonText)) throw new CliError(`${what} is not JSON, so --jq cannot filter it.`, { code: 'not_json' });
      const result = interruptible(() => jq.raw(jsonText, expression, flags));
      if (result.exitCode === JQ_COMPILE_ERROR) throw invalidExpression(result.stderr);
      if (result.exitCode !== 0) {
        throw new CliError(`--jq: ${jqMessage(result.stderr).replace(/\.?$/, '.')}`, { code: 'jq_error' });
      }
      return formatJqResults(result.stdout, pretty);
    },
  };
}
