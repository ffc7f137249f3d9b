import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, assertBuilt, serverEnv, type ServerEnvOptions } from './server-process';

/** The 2026-07-28 envelope a hand-written modern request carries in `params._meta`. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'workgraph-e2e-raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** The standard headers of a modern HTTP request for `method` (and `name`, for tools/call and the like). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28',
    'Mcp-Method': method,
    ...(name !== undefined ? { 'Mcp-Name': name } : {}),
  };
}

export interface ModernConn {
  client: Client;
  close: () => Promise<void>;
}

function newClient(name: string, capabilities: Record<string, unknown>): Client {
  // Pinned: a server that cannot speak 2026-07-28 fails the test instead of falling back to initialize.
  return new Client({ name, version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
}

/** The built server over stdio, driven by the SDK v2 client in the modern era. */
export async function connectModernStdio(opts: ServerEnvOptions & { capabilities?: Record<string, unknown> }): Promise<ModernConn & { stderr: () => string }> {
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', ...(opts.args ?? [])], env: serverEnv(opts), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = newClient('workgraph-e2e-modern', opts.capabilities ?? {});
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** An SDK v2 client in the modern era against a running HTTP server. */
export async function connectModernHttp(url: string, opts: { token?: string; capabilities?: Record<string, unknown> } = {}): Promise<ModernConn> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: opts.token ? { headers: { Authorization: `Bearer ${opts.token}` } } : undefined,
  });
  const client = newClient('workgraph-e2e-modern-http', opts.capabilities ?? {});
  await client.connect(transport);
  return { client, close: () => client.close() };
}
