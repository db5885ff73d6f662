import type * as ServerModule from '../../mcp/server.js';
import { requireCommonJs } from '../../util/require.js';

export type McpServerModule = typeof ServerModule;

// The MCP server and the SDK, bundled apart from the CLI as dist/mcp.cjs (see scripts/build.mjs),
// so that no other command loads or even compiles them; undefined when the sources run unbuilt.
declare const __SCHOOL_MCP_BUNDLE__: string;

/** What bin/school.cjs offers: a bundle of dist/ loaded from its V8 code cache, as the CLI itself is. */
interface BundleLoader {
  loadBundle(file: string): unknown;
}

export async function loadMcpServer(): Promise<McpServerModule> {
  // Written as a typeof test so the build folds it and leaves the sources' import() out of dist/cli.cjs.
  if (typeof __SCHOOL_MCP_BUNDLE__ === 'undefined') return import('../../mcp/server.js');
  // The SDK's module graph is most of the server's start-up: the code cache spares its compilation.
  const loader = requireCommonJs('../bin/school.cjs') as BundleLoader;
  return loader.loadBundle(requireCommonJs.resolve(__SCHOOL_MCP_BUNDLE__)) as McpServerModule;
}
