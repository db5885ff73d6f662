// The reference for `school mcp`'s start-up in scripts/bench.ts: the smallest useful stdio server
// on the same MCP SDK (the package as installed, unbundled), with one tool.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'minimal', version: '1.0.0' }, { capabilities: { tools: {} } });
const echo = { name: 'echo', description: 'Echo the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [echo] }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }] }));
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => process.exit(0));
