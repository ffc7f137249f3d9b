import { Lifecycle as Scope } from 'tsyringe';
import { InspectGraphExecution } from './application/use-cases/inspect-graph-execution';
import type { McpClientPool } from './application/ports/mcp-client-pool';
import type { GraphHost } from './infrastructure/graph-host';
import type { Lifecycle } from '../../kernel/lifecycle';
import { Tokens } from '../../kernel/tokens';
import type { ModuleRegistration } from '../../server/module-registrations';

/**
 * The graph module: one GraphHost per container (Tokens.GraphHost), created on first resolve with the MCP client pool
 * when one is registered. It starts empty: whoever serves graph tools loads `config.graphPaths` into it (with the
 * built-in tool names as reserved names). On shutdown every run still going is stopped; the pool closes its servers
 * itself (mcp-client-pool-module).
 */
export const graphModule: ModuleRegistration = (container) => {
  let host: GraphHost | undefined;
  container.register(Tokens.GraphHost, {
    useFactory: (c) => {
      if (host) return host;
      // Required on first resolve: jsonata, json-logic-js, yaml and Ajv stay out of the server's cold start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { GraphHost: Host } = require('./infrastructure/graph-host') as typeof import('./infrastructure/graph-host');
      const { builtinTools } = require('../../server/builtin-tools') as typeof import('../../server/builtin-tools');
      return (host = new Host({
        reservedToolNames: builtinTools().map((t) => t.name),
        ...(c.isRegistered(Tokens.McpClientPool, true) ? { mcpClientPool: c.resolve<McpClientPool>(Tokens.McpClientPool) } : {}),
      }));
    },
  });
  container.register(Tokens.InspectGraphExecution, { useClass: InspectGraphExecution }, { lifecycle: Scope.Singleton });
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<Lifecycle>(Tokens.Lifecycle).onShutdown('graph runs', () => host?.runner.stopAll());
  }
};
