import { CliError, UsageError } from '../../errors.js';

/** A compiled-once view of a jq expression; jq itself (WebAssembly) is loaded only when --jq is used. */
export interface JqFilter {
  /** Runs the filter on one JSON text; results as `gh api --jq` prints them, each on its own line. */
  apply(jsonText: string, what?: string): string;
}

/**
 * Prints jq's compact output (`-c`: one result per line) as `gh api --jq` does: a string result
 * raw, without quotes; any other value as JSON, compact for scripts or indented when `pretty`
 * (a person at a terminal). Each result ends with a newline.
 */
export function formatJqResults(compactStdout: string, pretty: boolean): string {
  if (compactStdout === '') return '';
  let out = '';
  for (const line of compactStdout.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('"')) out += `${String(JSON.parse(line))}\n`;
    else if (pretty && (line.startsWith('{') || line.startsWith('['))) out += `${JSON.stringify(JSON.parse(line), null, 2)}\n`;
    else out += `${line}\n`;
  }
  return out;
}

/** The first line of jq's message without its `jq: error…:` prefix. */
export function jqMessage(stderr: string): string {
  const first = stderr.split('\n').find((l) => l.trim() !== '') ?? 'jq failed';
  return first.replace(/^jq: error(?: \(at [^)]*\))?: /, '').replace(/^jq: /, '').trim().replace(/:$/, '');
}

/** jq reports a bad expression with exit status 3 (compile error). */
const JQ_COMPILE_ERROR = 3;

/** Loads jq and checks the expression before any request is sent: a typo costs no round trip. */
export async function compileJq(expression: string, pretty: boolean): Promise<JqFilter> {
  const { loadJq } = await import('jq-wasm');
  const jq = await loadJq();
  const flags = ['-c', '-M'];
  const check = jq.raw(null, expression, flags);
  if (check.exitCode === JQ_COMPILE_ERROR) {
    throw new UsageError(`Invalid --jq expression: ${jqMessage(check.stderr).replace(/\.?$/, '.')}`, { code: 'invalid_jq' });
  }
  return {
    apply(jsonText, what = 'The response') {
      try {
        JSON.parse(jsonText);
      } catch {
        throw new CliError(`${what} is not JSON, so --jq cannot filter it.`, { code: 'not_json' });
      }
      const result = jq.raw(jsonText, expression, flags);
      if (result.exitCode !== 0) {
        throw new CliError(`--jq: ${jqMessage(result.stderr).replace(/\.?$/, '.')}`, { code: 'jq_error' });
      }
      return formatJqResults(result.stdout, pretty);
    },
  };
}
