import type { Readable, Writable } from 'node:stream';

/**
 * A bare MCP client: newline-delimited JSON-RPC over two streams, written from the protocol's
 * text rather than with the SDK, so that tests see the server as a host other than the SDK's
 * `Client` does. Every message both ways is kept in `messages`.
 */
export class WireClient {
  readonly messages: string[] = [];
  readonly notifications: Array<{ method: string; params?: Record<string, unknown> }> = [];
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  private buffer = '';

  constructor(
    private readonly output: Writable,
    input: Readable,
    /** Answers the server's requests (elicitation/create…); undefined answers a method-not-found error. */
    private readonly onRequest?: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown> | undefined>,
  ) {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        if (line.trim()) this.receive(line);
      }
    });
  }

  private receive(line: string) {
    this.messages.push(line);
    const msg = JSON.parse(line) as { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { message: string } };
    if (msg.method && msg.id !== undefined) {
      void (async () => {
        const result = this.onRequest ? await this.onRequest(msg.method!, msg.params ?? {}) : undefined;
        this.write(result ? { jsonrpc: '2.0', id: msg.id, result } : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
      })();
    } else if (msg.method) {
      this.notifications.push({ method: msg.method, params: msg.params });
    } else if (msg.id !== undefined) {
      const w = this.waiting.get(msg.id);
      this.waiting.delete(msg.id);
      if (msg.error) w?.reject(new Error(msg.error.message));
      else w?.resolve(msg.result ?? {});
    }
  }

  private write(message: Record<string, unknown>) {
    const line = JSON.stringify(message);
    this.messages.push(line);
    this.output.write(`${line}\n`);
  }

  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params?: Record<string, unknown>) {
    this.write({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  async initialize(capabilities: Record<string, unknown> = {}, protocolVersion = '2025-11-25'): Promise<Record<string, unknown>> {
    const result = await this.request('initialize', { protocolVersion, capabilities, clientInfo: { name: 'wire-client', version: '1.0.0' } });
    this.notify('notifications/initialized');
    return result;
  }

  async listTools(): Promise<Array<Record<string, unknown> & { name: string }>> {
    return (await this.request('tools/list')).tools as Array<Record<string, unknown> & { name: string }>;
  }

  callTool(name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) {
    return this.request('tools/call', { name, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<{
      content: Array<{ type: string; text: string }>;
      structuredContent?: Record<string, unknown>;
      isError?: boolean;
    }>;
  }

  close() {
    this.output.end();
  }
}
