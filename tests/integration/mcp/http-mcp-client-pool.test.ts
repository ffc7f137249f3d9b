import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServerRef } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import { ExternalToolError } from '../../../src/kernel/errors';
import { SdkMcpClientPool } from '../../../src/modules/graph/infrastructure/mcp';

/** A real streamable HTTP MCP server on 127.0.0.1 (random port), one SDK transport per session. */
async function startHttpServer() {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const closedSessions: string[] = [];

  function newSession(): StreamableHTTPServerTransport {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => {
        sessions.delete(id);
        closedSessions.push(id);
      },
    });
    const mcp = new McpServer({ name: 'http-fixture', version: '1.0.0' });
    mcp.registerTool('whoami', {}, async (extra) => {
      const value = {
        token: extra.requestInfo?.headers['x-test-token'] ?? null,
        sessionId: extra.sessionId ?? null,
      };
      return { structuredContent: value, content: [{ type: 'text', text: JSON.stringify(value) }] };
    });
    void mcp.connect(transport);
    return transport;
  }

  const server = http.createServer((req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (known) return void known.handleRequest(req, res);
    if (sessionId === undefined && req.method === 'POST') return void newSession().handleRequest(req, res);
    res.writeHead(404, { 'content-type': 'application/json' }).end(
      JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions,
    closedSessions,
    /** Forgets every session, as a restarted server would. */
    forgetSessions: () => sessions.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('SdkMcpClientPool over streamable HTTP', () => {
  let fixture: Awaited<ReturnType<typeof startHttpServer>>;
  let pool: SdkMcpClientPool;
  let server: McpServerRef;

  beforeEach(async () => {
    fixture = await startHttpServer();
    pool = new SdkMcpClientPool({ requestTimeoutMs: 10_000 });
    server = { name: 'remote', config: { type: 'http', url: fixture.url, headers: { 'X-Test-Token': 'secret-1' } } };
  });

  afterEach(async () => {
    await pool.closeAll();
    await fixture.close();
  });

  async function whoami(ref: McpServerRef = server): Promise<{ token: string | null; sessionId: string | null }> {
    const result = await pool.callTool(ref, 'whoami', {});
    return result.structuredContent as { token: string | null; sessionId: string | null };
  }

  it('calls a tool with the configured headers and reuses one session', async () => {
    const first = await whoami();
    expect(first.token).toBe('secret-1');
    expect(first.sessionId).toEqual(expect.any(String));
    expect((await whoami()).sessionId).toBe(first.sessionId);
    expect(fixture.sessions.size).toBe(1);
  });

  it('accepts the streamableHttp type name too', async () => {
    const ref: McpServerRef = { name: 'remote2', config: { type: 'streamableHttp', url: fixture.url } };
    expect((await whoami(ref)).token).toBeNull();
  });

  it('fails a call whose session the server lost, then opens a new session on the next call', async () => {
    const first = await whoami();
    fixture.forgetSessions();
    const error = (await pool.callTool(server, 'whoami', {}).catch((e: unknown) => e)) as ExternalToolError;
    expect(error).toBeInstanceOf(ExternalToolError);
    expect(error.message).toMatch(/MCP server 'remote' tool 'whoami' failed/);
    const second = await whoami();
    expect(second.sessionId).not.toBe(first.sessionId);
    expect(second.token).toBe('secret-1');
  });

  it('reports an unreachable server naming it', async () => {
    await fixture.close();
    const error = (await pool.callTool(server, 'whoami', {}).catch((e: unknown) => e)) as ExternalToolError;
    expect(error).toBeInstanceOf(ExternalToolError);
    expect(error.message).toMatch(/MCP server 'remote' tool 'whoami' could not be started/);
    fixture = await startHttpServer(); // for afterEach
  });

  it('closeAll ends the HTTP session on the server', async () => {
    const { sessionId } = await whoami();
    await pool.closeAll();
    expect(fixture.closedSessions).toEqual([sessionId]);
    expect(fixture.sessions.size).toBe(0);
  });
});
