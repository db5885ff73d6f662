import { createRequire } from 'node:module';

/**
 * CommonJS packages (keytar, commander) and the built-in modules of the hot path (node:http) are
 * loaded with require: going through import() would start the ES module loader, a cost every
 * `school token` and `school call` would pay.
 */
export const requireCommonJs = createRequire(import.meta.url);

/** Whether this Node can require() an ES module (20.19 and later, 22.12 and later). */
const canRequireEsm = Boolean((process.features as { require_module?: boolean }).require_module);

/**
 * An ES module package (ora, open, chalk, jq-wasm), loaded where a command needs it. With
 * require() where Node can: the installed CLI is then compiled from a code cache (see
 * bin/school.cjs), which leaves it no import(). An older Node runs the CLI as a plain file, where
 * import() works.
 */
export async function importPackage<T>(name: string): Promise<T> {
  if (canRequireEsm) return requireCommonJs(name) as T;
  return (await import(name)) as T;
}
