/**
 * One operation sent from `school api` and from `school mcp`'s tool for it, as a user and a host
 * send them: the built binary, and a spawned stdio server with a real MCP client. What an API
 * received from each is compared by the tests (the one builder means the same bytes).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect } from 'vitest';
import { type Env, SCHOOL_BIN, expectSuccess, runSchool } from './harness.js';

export interface FrontEndCase {
  /** What follows `school api`. */
  argv: string[];
  /** The MCP tool, and its arguments, for the same request. */
  tool: string;
  args: Record<string, unknown>;
}

/** What the API received for each case, from `school api` and then from `school mcp` (`received()`: everything it has received so far). */
export async function requestsFromEachFrontEnd<R>(cases: readonly FrontEndCase[], received: () => readonly R[], env: Env): Promise<{ fromApi: R[]; fromMcp: R[] }> {
  const fromApi: R[] = [];
  for (const c of cases) {
    const before = received().length;
    expectSuccess(await runSchool(['api', ...c.argv], env));
    fromApi.push(...received().slice(before));
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [SCHOOL_BIN, 'mcp', '--allow-write'], env: env as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'e2e-host', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const fromMcp: R[] = [];
  try {
    for (const c of cases) {
      const before = received().length;
      const res = (await client.callTool({ name: c.tool, arguments: c.args })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(res.isError, `${c.tool}: ${res.content[0]?.text}`).toBeFalsy();
      fromMcp.push(...received().slice(before));
    }
  } finally {
    await client.close();
  }
  return { fromApi, fromMcp };
}
