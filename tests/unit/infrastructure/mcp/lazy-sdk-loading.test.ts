/**
 * The server's cold start must not pay for the MCP SDK client: the pool loads it only when a graph first calls a
 * server. Each SDK client module is replaced by a factory that records when it is required.
 */
describe('SdkMcpClientPool module loading', () => {
  it('does not load the SDK client modules until the first call', async () => {
    const loaded: string[] = [];
    // SDK v2: the client with its HTTP transports is one module, the stdio transport another.
    const modules = ['@modelcontextprotocol/client', '@modelcontextprotocol/client/stdio'];
    let pool: import('../../../../src/modules/graph/application/ports/mcp-client-pool').McpClientPool | undefined;
    jest.isolateModules(() => {
      for (const name of modules) {
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      }
      const { SdkMcpClientPool } = require('../../../../src/modules/graph/infrastructure/mcp') as typeof import('../../../../src/modules/graph/infrastructure/mcp');
      pool = new SdkMcpClientPool();
    });
    expect(loaded).toEqual([]);

    // The first call loads what it needs (the client and, for this stdio server, the stdio transport).
    const error = await pool!
      .callTool({ name: 'ghost', config: { command: 'workgraph-no-such-command-xyz' } }, 'echo', {})
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(loaded.sort()).toEqual([modules[0], modules[1]].sort());
    await pool!.closeAll();
  });
});
