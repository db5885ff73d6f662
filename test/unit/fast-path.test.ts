import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.js';
import { parseFast } from '../../src/fast-path.js';
import type { GlobalOptions } from '../../src/options.js';
import { buildProgram } from '../../src/program.js';

/** The options the full parser hands a command for this argv (the command itself never runs). */
async function parsedByCommander(argv: string[]): Promise<GlobalOptions> {
  let parsed: GlobalOptions | undefined;
  let pending: Promise<void> | undefined;
  const program = buildProgram(
    (opts): Deps => {
      parsed = opts;
      throw new Error('stop before running');
    },
    (p) => (pending = p),
  );
  await program.parseAsync(argv, { from: 'user' });
  await pending?.catch(() => undefined);
  if (!parsed) throw new Error(`commander ran no command for ${argv.join(' ')}`);
  return parsed;
}

describe('fast path recogniser', () => {
  it.each([
    [['token']],
    [['--profile', 'ci', 'token', '--json']],
    [['token', '--base-url=https://s.example', '--verbose']],
    [['token', '--profile=work']],
    [['token', '--min-ttl', '300']],
    [['token', '--min-ttl=60', '--json']],
    [['call', '/api/courses']],
    [['call', '/api/courses?page=2', '--json']],
    [['--profile', 'ci', 'call', '--base-url', 'https://s.example', 'https://s.example/api/me']],
  ])('takes %j, with the options the full parser would give', async (argv) => {
    const fast = parseFast(argv);
    expect(fast).toBeDefined();
    expect(fast && 'opts' in fast ? fast.opts : undefined).toEqual(await parsedByCommander(argv));
  });

  it.each([[[]], [['--help']], [['-h']]])('serves %j as the help text', (argv) => {
    expect(parseFast(argv)).toEqual({ command: 'help' });
  });

  it.each([
    // anything a plain form does not have goes to the full parser, so new flags work unchanged
    [['token', '--for-ci', '--profile', 'ci']],
    [['--min-ttl', '60', 'token']],
    [['token', '--min-ttl']],
    [['token', '--min-ttl-x', '60']],
    [['call', '/api/courses', '--min-ttl', '60']],
    [['token', '--help']],
    [['token', 'extra']],
    [['token', '--profile']],
    [['token', '--profile', '--json']],
    [['call']],
    [['call', '/api/a', '/api/b']],
    [['call', '/api/courses', '--paginate']],
    [['call', '/api/courses', '--jq', '.courses']],
    [['call', '/api/courses', '--retry', '2', '--timeout', '5']],
    [['call', '-X', 'POST', '/api/echo', '-f', 'a=b']],
    [['call', '-i', '/api/courses']],
    [['call', '--list']],
    [['call', '--', '/api/courses']],
    [['whoami']],
    [['help']],
    [['--version']],
    [['--help', 'call']],
    [['tokne']],
  ])('leaves %j to the full parser', (argv) => {
    expect(parseFast(argv)).toBeUndefined();
  });
});
