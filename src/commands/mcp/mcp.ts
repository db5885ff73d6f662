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
  // A bad --profile, or one naming no stored profile, stops the server before anything starts.
  await resolveTarget(deps.state, { ...inputs, profileMustExist: true });
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
