import type * as ServerModule from '../../mcp/server.js';
import { requireCommonJs } from '../../util/require.js';

export type McpServerModule = typeof ServerModule;

// The MCP server and the SDK, bundled apart from the CLI as dist/mcp.cjs (see scripts/build.mjs),
// so that no other command loads or even compiles them; undefined when the sources run unbuilt.
declare const __SCHOOL_MCP_BUNDLE__: string;

/**
 * Compiles a CommonJS bundle as require() would, with the V8 code cache the build made of it when
 * there is one (the SDK's module graph is most of the server's start-up; the cache spares its
 * compilation). V8 ignores a cache made by another Node or under other flags.
 */
export function compileBundle(file: string): unknown {
  const fs: typeof import('node:fs') = requireCommonJs('node:fs');
  const vm: typeof import('node:vm') = requireCommonJs('node:vm');
  const Module: typeof import('node:module') & { wrap(source: string): string } = requireCommonJs('node:module');
  const path: typeof import('node:path') = requireCommonJs('node:path');
  const source = fs.readFileSync(file, 'utf8');
  let cachedData: Buffer | undefined;
  try {
    if (fs.statSync(`${file}.v8-cache`).mtimeMs >= fs.statSync(file).mtimeMs) cachedData = fs.readFileSync(`${file}.v8-cache`);
  } catch {
    // no cache: compiled without it
  }
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = { exports: {} as unknown, filename: file };
  (script.runInThisContext() as (...args: unknown[]) => void).call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  return mod.exports;
}

export async function loadMcpServer(): Promise<McpServerModule> {
  // Written as a typeof test so the build folds it and leaves the sources' import() out of dist/cli.cjs.
  if (typeof __SCHOOL_MCP_BUNDLE__ === 'undefined') return import('../../mcp/server.js');
  return compileBundle(requireCommonJs.resolve(__SCHOOL_MCP_BUNDLE__)) as McpServerModule;
}
