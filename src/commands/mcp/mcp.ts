import type { Deps } from '../../deps.js';
import { createEngine } from '../../mcp/engine.js';
import { type GlobalOptions, targetInputs } from '../../options.js';
import { resolveTarget } from '../../session/target.js';
import { VERSION } from '../../version.js';
import { defineCommand } from '../command.js';
import { loadMcpServer } from './load-server.js';

export interface McpOptions extends GlobalOptions {
  allowWrite: boolean;
  /** --toolsets: scope areas (the part of a scope before `:`), checked and lower-cased. */
  toolsets?: string[];
}

async function run(deps: Deps, opts: McpOptions): Promise<void> {
  const { toolsets } = opts;
  const inputs = targetInputs(opts, deps.env);
  // A malformed --profile or base URL stops the server before anything starts. A profile not made
  // yet does not: the host could only show "failed to connect"; the results and instructions say it.
  await resolveTarget(deps.state, inputs);
  // stdout carries protocol messages only: the server writes there, nothing else does.
  const engine = createEngine(deps, inputs);
  const { serveMcp } = await loadMcpServer();
  await serveMcp(engine, {
    allowWrite: opts.allowWrite,
    toolsets,
    version: VERSION,
    stdin: deps.io.in,
    stdout: deps.io.out,
    notice: (text) => deps.io.err.write(`school mcp: ${text}\n`),
    signal: deps.signal,
  });
}

export const mcpCommand = defineCommand<McpOptions>({ name: 'mcp', run });
