import type { TokenOptions } from './commands/token/token.js';

/**
 * `school token` is called by scripts in tight loops, so it skips the command parser and its
 * import cost. Only the plain forms are recognised here; anything else (help, a typo, an unknown
 * flag) returns undefined and goes through the full parser, which reports it properly.
 */
export function parseFastToken(argv: string[]): TokenOptions | undefined {
  const opts: TokenOptions = {};
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // --min-ttl is the command's own flag, not a global one: before the command it is the parser's to refuse.
    if (arg.startsWith('--min-ttl') && command === undefined) return undefined;
    if (arg === '--json') opts.json = true;
    else if (arg === '--verbose') opts.verbose = true;
    else if (arg === '--profile' || arg === '--base-url' || arg === '--min-ttl') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) return undefined;
      if (arg === '--profile') opts.profile = value;
      else if (arg === '--min-ttl') opts.minTtl = value;
      else opts.baseUrl = value;
    } else if (arg.startsWith('--profile=')) opts.profile = arg.slice('--profile='.length);
    else if (arg.startsWith('--base-url=')) opts.baseUrl = arg.slice('--base-url='.length);
    else if (arg.startsWith('--min-ttl=')) opts.minTtl = arg.slice('--min-ttl='.length);
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
