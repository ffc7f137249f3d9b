import * as path from 'node:path';
import type { McpServerRef } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import { SdkMcpClientPool } from '../../../src/modules/graph/infrastructure/mcp';
import { isAlive } from '../../helpers/processes';

/** The fixture MCP server (tests/fixtures/mcp-servers/test-server.js) the stdio pool tests start as a child process. */
export const FIXTURE = path.resolve(__dirname, '../../fixtures/mcp-servers/test-server.js');

export function fixtureServer(name = 'fixture', extra: { env?: Record<string, string>; cwd?: string } = {}): McpServerRef {
  return { name, config: { command: process.execPath, args: [FIXTURE], ...extra } };
}

/** The pid of the server process that answered an echo. */
export async function echoPid(pool: SdkMcpClientPool, server: McpServerRef, message = 'hi'): Promise<number> {
  const result = await pool.callTool(server, 'echo', { message });
  return (result.structuredContent as { pid: number }).pid;
}

/** A fresh pool for each test (closed after it) and the pids to SIGKILL after it if they still run. */
export function useStdioPool(): { readonly pool: SdkMcpClientPool; readonly pids: number[] } {
  const state = { pids: [] as number[] } as { pool: SdkMcpClientPool; pids: number[] };
  beforeEach(() => {
    state.pool = new SdkMcpClientPool({ requestTimeoutMs: 15_000 });
  });
  afterEach(async () => {
    await state.pool.closeAll();
    for (const pid of state.pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return state;
}
