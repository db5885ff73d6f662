import type { Deps } from '../../deps.js';
import { CliError } from '../../errors.js';

export async function completionRun(_deps: Deps, _opts: object): Promise<void> {
  throw new CliError('`school completion` is not yet implemented.', { code: 'not_implemented' });
}
