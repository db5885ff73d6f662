import type { GlobalOptions } from './options.js';

/**
 * `school token` is called by scripts in tight loops, so it skips the command parser and its
 * import cost. Only the plain forms are recognised here; anything else (help, a typo, an unknown
 * flag) returns undefined and goes through the full parser, which reports it properly.
 */
export function parseFastToken(argv: string[]): GlobalOptions | undefined {
  const opts: GlobalOptions = {};
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') opts.json = true;
    else if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--profile' || arg === '--base-url') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) return undefined;
      if (arg === '--profile') opts.profile = value;
      else opts.baseUrl = value;
    } else if (arg.startsWith('--profile=')) opts.profile = arg.slice('--profile='.length);
    else if (arg.startsWith('--base-url=')) opts.baseUrl = arg.slice('--base-url='.length);
    else if (arg.startsWith('-') || command !== undefined) return undefined;
    else command = arg;
  }
  return command === 'token' ? opts : undefined;
}

export async function fastPath(argv: string[], signal: AbortSignal): Promise<number | undefined> {
  const opts = parseFastToken(argv);
  if (!opts) return undefined;
  const [{ systemDeps }, { runToken }] = await Promise.all([import('./deps-system.js'), import('./commands/token/token.js')]);
  await runToken(systemDeps({ verbose: Boolean(opts.verbose), signal }), opts);
  return 0;
}
