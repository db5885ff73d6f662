import type { Deps } from '../../deps.js';
import { CliError } from '../../errors.js';

export async function callRun(_deps: Deps, _opts: object): Promise<void> {
  throw new CliError('`school call` is not yet implemented.', { code: 'not_implemented' });
}
