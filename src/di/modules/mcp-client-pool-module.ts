import type { Logger } from '../../application/ports/logger';
import type { Lifecycle } from '../../infrastructure/lifecycle/lifecycle';
import { SdkMcpClientPool } from '../../infrastructure/mcp';
import { Tokens } from '../tokens';
import type { ModuleRegistration } from './index';

/**
 * The MCP client pool graph `mcp` nodes call (Tokens.McpClientPool), one per container. It is created on first
 * resolve and loads the SDK client only when a graph first calls a server. On shutdown every server it started is
 * closed (the Lifecycle bounds the wait; servers that ignore the end of stdin get SIGTERM after 2 s).
 */
export const mcpClientPoolModule: ModuleRegistration = (container, config) => {
  let pool: SdkMcpClientPool | undefined;
  container.register(Tokens.McpClientPool, {
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
