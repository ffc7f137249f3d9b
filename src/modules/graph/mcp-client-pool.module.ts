import type { Logger } from '../../kernel/logger';
import type { Lifecycle } from '../../kernel/lifecycle';
import { SdkMcpClientPool } from './infrastructure/mcp';
import { Tokens } from '../../kernel/tokens';
import { GraphTokens } from './application/graph.tokens';
import type { ModuleRegistration } from '../../kernel/module-registration';

/**
 * The MCP client pool graph `mcp` nodes call (GraphTokens.McpClientPool), one per container. It is created on first
 * resolve and loads the SDK client only when a graph first calls a server. On shutdown every server it started is
 * closed (the Lifecycle bounds the wait; servers that ignore the end of stdin get SIGTERM after 2 s).
 */
export const mcpClientPoolModule: ModuleRegistration = (container, config) => {
  let pool: SdkMcpClientPool | undefined;
  container.register(GraphTokens.McpClientPool, {
    useFactory: (c) =>
      (pool ??= new SdkMcpClientPool({
        logger: c.resolve<Logger>(Tokens.Logger).child({ component: 'mcp-client-pool' }),
        clientInfo: { name: 'workgraph', version: config.version },
      })),
  });
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<Lifecycle>(Tokens.Lifecycle).onShutdown(
      'graph MCP servers',
      () => pool?.closeAll(),
      () => pool?.killAll(),
    );
  }
};
