import { createRequire } from 'node:module';

/**
 * CommonJS packages (keytar, commander, proper-lockfile) are loaded with require: going through
 * import() would start the ES module loader, a cost every `school token` would pay.
 */
export const requireCommonJs = createRequire(import.meta.url);
