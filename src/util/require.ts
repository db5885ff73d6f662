import { createRequire } from 'node:module';

/**
 * CommonJS packages (keytar, commander) and the built-in modules of the hot path (node:http) are
 * loaded with require: going through import() would start the ES module loader, a cost every
 * `school token` and `school call` would pay.
 */
export const requireCommonJs = createRequire(import.meta.url);
