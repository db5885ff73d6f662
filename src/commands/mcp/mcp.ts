import type { Command } from 'commander';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { createEngine } from '../../mcp/engine.js';
import { type GlobalOptions, targetInputs } from '../../options.js';
import { targetProfile } from '../../session/target.js';
import { printable } from '../../util/printable.js';
import { VERSION } from '../../version.js';
import { booleanFlag, defineCommand, globalOptions, stringFlag } from '../command.js';
import { loadMcpServer } from './load-server.js';

export interface McpOptions extends GlobalOptions {
  allowWrite: boolean;
  toolsets?: string;
}

/** `--toolsets courses,students`: scope areas, the part of a scope before `:`. */
export function parseToolsetsFlag(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const areas = [...new Set(raw.split(/[\s,]+/).map((s) => s.trim().toLowerCase()).filter(Boolean))];
  if (!areas.length) throw new UsageError('--toolsets needs scope areas, e.g. --toolsets courses,students');
  const bad = areas.find((a) => !/^[a-z0-9_.-]{1,64}$/.test(a) || a.includes(':'));
  if (bad !== undefined) throw new UsageError(`Invalid toolset "${printable(bad)}": name a scope area, the part of a scope before ":" (courses for courses:read).`);
  return areas;
}

async function run(deps: Deps, opts: McpOptions): Promise<void> {
  const toolsets = parseToolsetsFlag(opts.toolsets);
  const inputs = targetInputs(opts, deps.env);
  targetProfile(inputs); // a bad --profile is a usage error before anything starts
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

export const mcpCommand = defineCommand<McpOptions>({
  name: 'mcp',
  description: 'serve the school API as MCP tools on stdio, for agent hosts',
  examples: `
An MCP server for agent hosts (Claude Code, VS Code, Cursor…): the host starts it and speaks the
Model Context Protocol on its stdin and stdout. It uses the login \`school login\` made; the token
never reaches the agent. Each operation of the API's /openapi.json is a tool (more than 40: one
searchable school_operations tool instead), plus school_call and school_whoami. Only reading
(GET, HEAD) unless --allow-write. Every tool call is recorded in audit.jsonl in the state
directory (see \`school status\`): time, profile, tool, method, path, status, duration.
In Claude Code: claude mcp add --scope user school -- school mcp (docs/agents.md has VS Code, Cursor, Codex).

Examples:
  school mcp
  school mcp --profile work --toolsets courses,students
  school mcp --allow-write`,
  configure(cmd: Command) {
    cmd
      .option('--allow-write', 'offer and send writes too (POST, PUT, PATCH, DELETE); reading only without it')
      .option('--toolsets <areas>', 'only the operations of these scope areas, comma-separated (e.g. courses,students)');
  },
  toOptions: (raw) => ({ ...globalOptions(raw), allowWrite: booleanFlag(raw, 'allowWrite'), toolsets: stringFlag(raw, 'toolsets') }),
  run,
});
