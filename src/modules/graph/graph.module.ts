import { Lifecycle as Scope, type DependencyContainer } from 'tsyringe';
import type { ToolRegistry } from '../../kernel/tools/tool-registry';
import { InspectGraphExecution } from './application/use-cases/inspect-graph-execution';
import type { McpClientPool } from './application/ports/mcp-client-pool';
import type { GraphHost } from './infrastructure/graph-host';
import type { Lifecycle } from '../../kernel/lifecycle';
import { Tokens } from '../../kernel/tokens';
import { GraphTokens } from './application/graph.tokens';
import type { ModuleRegistration } from '../../kernel/module-registration';

/**
 * The graph module: one GraphHost per container (GraphTokens.GraphHost), created on first resolve with the MCP client pool
 * when one is registered. It starts empty: whoever serves graph tools loads `config.graphPaths` into it (with the
 * built-in tool names as reserved names). On shutdown every run still going is stopped; the pool closes its servers
 * itself (mcp-client-pool-module).
 */
/** The names of the built-in tools (registered with origin `builtin` by the server core), which graphs may not take. */
function builtinToolNames(c: DependencyContainer): string[] {
  if (!c.isRegistered(Tokens.ToolRegistry, true)) return [];
  const registry = c.resolve<ToolRegistry>(Tokens.ToolRegistry);
  return registry.list().filter((t) => registry.originOf(t.name) === 'builtin').map((t) => t.name);
}

export const graphModule: ModuleRegistration = (container) => {
  let host: GraphHost | undefined;
  container.register(GraphTokens.GraphHost, {
    useFactory: (c) => {
      if (host) return host;
      // Required on first resolve: jsonata, json-logic-js, yaml and Ajv stay out of the server's cold start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { GraphHost: Host } = require('./infrastructure/graph-host') as typeof import('./infrastructure/graph-host');
      return (host = new Host({
        reservedToolNames: builtinToolNames(c),
        ...(c.isRegistered(GraphTokens.McpClientPool, true) ? { mcpClientPool: c.resolve<McpClientPool>(GraphTokens.McpClientPool) } : {}),
      }));
    },
  });
  container.register(GraphTokens.InspectGraphExecution, { useClass: InspectGraphExecution }, { lifecycle: Scope.Singleton });
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<Lifecycle>(Tokens.Lifecycle).onShutdown('graph runs', () => host?.runner.stopAll());
  }
};
