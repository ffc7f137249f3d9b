import { Lifecycle as Scope, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { Logger } from '../../kernel/logger';
import type { GraphRunStore } from './application/ports/graph-run-store';
import type { ToolRegistry } from '../../kernel/tools/tool-registry';
import { InspectGraphExecution } from './application/use-cases/inspect-graph-execution';
import { ListGraphRuns } from './application/use-cases/list-graph-runs';
import { GetGraphRun } from './application/use-cases/get-graph-run';
import { GetGraphRunExecution } from './application/use-cases/get-graph-run-execution';
import { ListGraphTools } from './application/use-cases/list-graph-tools';
import { DescribeGraphTool } from './application/use-cases/describe-graph-tool';
import { RunGraphTool } from './application/use-cases/run-graph-tool';
import type { McpClientPool } from './application/ports/mcp-client-pool';
import type { GraphHost } from './infrastructure/graph-host';
import type { Lifecycle } from '../../kernel/lifecycle';
import { Tokens } from '../../kernel/tokens';
import { untrackedWrites, type WritesInProgress } from '../../kernel/writes-in-progress';
import { noChangeEvents, type ChangeEvents } from '../../kernel/change-events';
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

/** A failed run record is logged, never thrown: the run's own answer is unaffected. */
function recordErrorLogger(c: DependencyContainer): (err: unknown, executionId: string) => void {
  const logger = c.isRegistered(Tokens.Logger, true) ? c.resolve<Logger>(Tokens.Logger) : undefined;
  return (err, executionId) => logger?.warn('graph run not recorded', { executionId, err: (err as Error)?.message ?? String(err) });
}

/**
 * The run store as servers use it: a record being written holds shutdown until it is on disk (a run that answered just
 * before the end of stdin is still recorded), and each saved record is published as a `graph-run` change event (the
 * dashboard's live run lists; the tool name goes in `project`).
 */
function recordingStore(c: DependencyContainer, store: GraphRunStore): GraphRunStore {
  const writes = c.isRegistered(Tokens.WritesInProgress, true) ? c.resolve<WritesInProgress>(Tokens.WritesInProgress) : untrackedWrites;
  const changes = c.isRegistered(Tokens.ChangeEvents, true) ? c.resolve<ChangeEvents>(Tokens.ChangeEvents) : noChangeEvents;
  return {
    save: async (record) => {
      await writes.track(store.save(record));
      changes.publish({ kind: 'graph-run', project: record.tool, id: record.runId, at: new Date().toISOString() });
    },
    list: (opts) => store.list(opts),
    get: (runId) => store.get(runId),
  };
}

export const graphModule: ModuleRegistration = (container, config) => {
  let host: GraphHost | undefined;
  container.register(GraphTokens.GraphHost, {
    useFactory: (c) => {
      if (host) return host;
      // Required on first resolve: jsonata, json-logic-js, yaml and Ajv stay out of the server's cold start.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { GraphHost: Host } = require('./infrastructure/graph-host') as typeof import('./infrastructure/graph-host');
      const { readMcpConfigFiles } = require('./infrastructure/mcp-config-file') as typeof import('./infrastructure/mcp-config-file');
      const mcpConfigFiles = config.mcpConfigFiles ?? [];
      return (host = new Host({
        reservedToolNames: builtinToolNames(c),
        ...(config.graph
          ? {
              recentRunsMaxBytes: config.graph.historyMaxBytes,
              maxRunHistoryBytes: config.graph.runHistoryMaxBytes,
              maxResultBytes: config.graph.resultMaxBytes,
            }
          : {}),
        ...((config?.graphRunsPerTool ?? 0) > 0 ? { runStore: c.resolve<GraphRunStore>(GraphTokens.GraphRunStore), onRecordError: recordErrorLogger(c) } : {}),
        ...(mcpConfigFiles.length > 0 ? { mcpServers: readMcpConfigFiles(mcpConfigFiles) } : {}),
        ...(c.isRegistered(GraphTokens.McpClientPool, true) ? { mcpClientPool: c.resolve<McpClientPool>(GraphTokens.McpClientPool) } : {}),
      }));
    },
  });
  container.register(GraphTokens.GraphRunStore, {
    useFactory: instanceCachingFactory((c) => {
      const { FileGraphRunStore } = require('./infrastructure/file-graph-run-store') as typeof import('./infrastructure/file-graph-run-store');
      return recordingStore(c, new FileGraphRunStore(config.dataDir, config.graphRunsPerTool));
    }),
  });
  container.register(GraphTokens.InspectGraphExecution, { useClass: InspectGraphExecution }, { lifecycle: Scope.Singleton });
  // Read by the dashboard (recorded runs, drawings) and its run form.
  container.register(GraphTokens.ListGraphRuns, { useClass: ListGraphRuns }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetGraphRun, { useClass: GetGraphRun }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetGraphRunExecution, { useClass: GetGraphRunExecution }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.ListGraphTools, { useClass: ListGraphTools }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.DescribeGraphTool, { useClass: DescribeGraphTool }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.RunGraphTool, { useClass: RunGraphTool }, { lifecycle: Scope.Singleton });
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<Lifecycle>(Tokens.Lifecycle).onShutdown('graph runs', () => host?.runner.stopAll());
  }
};
