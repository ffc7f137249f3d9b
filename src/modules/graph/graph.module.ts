import * as path from 'node:path';
import { Lifecycle as Scope, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { Logger } from '../../kernel/logger';
import type { PgDatabase } from '../../kernel/postgres/pg-database';
import type { GraphRunStore } from './application/ports/graph-run-store';
import { GraphRunChangeReach } from './application/services/graph-run-change-reach';
import type { ToolRegistry } from '../../kernel/tools/tool-registry';
import { InspectGraphExecution } from './application/use-cases/inspect-graph-execution';
import { ListGraphRuns } from './application/use-cases/list-graph-runs';
import { GetGraphRun } from './application/use-cases/get-graph-run';
import { GetGraphRunExecution } from './application/use-cases/get-graph-run-execution';
import { ListGraphTools } from './application/use-cases/list-graph-tools';
import { DescribeGraphTool } from './application/use-cases/describe-graph-tool';
import { RunGraphTool } from './application/use-cases/run-graph-tool';
import { GraphDebugRuns } from './application/services/graph-debug-runs';
import { StartGraphDebugRun } from './application/use-cases/debug/start-graph-debug-run';
import { GetGraphDebugRun } from './application/use-cases/debug/get-graph-debug-run';
import { ControlGraphDebugRun } from './application/use-cases/debug/control-graph-debug-run';
import { GetGraphServer } from './application/use-cases/authoring/get-graph-server';
import { ListServedGraphTools } from './application/use-cases/authoring/list-served-graph-tools';
import { GetGraphToolDefinition } from './application/use-cases/authoring/get-graph-tool-definition';
import { TestJsonata, TestJsonLogic } from './application/use-cases/authoring/test-expressions';
import { GetMcpServerTool, ListMcpServers } from './application/use-cases/authoring/list-mcp-servers';
import { AddGraphTool, DeleteGraphTool, UpdateGraphTool } from './application/use-cases/authoring/change-graph-tool';
import { RunGraphToolDraft } from './application/use-cases/authoring/run-graph-tool-draft';
import type { GraphFileSync } from './application/ports/graph-file-editor';
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
 * dashboard's live run lists; the tool name goes in `project`) — by this process for the files, by the database's
 * NOTIFY (heard back through the PgChangeBridge on every host) for PostgreSQL.
 */
function recordingStore(c: DependencyContainer, store: GraphRunStore, publish = true): GraphRunStore {
  const writes = c.isRegistered(Tokens.WritesInProgress, true) ? c.resolve<WritesInProgress>(Tokens.WritesInProgress) : untrackedWrites;
  const changes = c.isRegistered(Tokens.ChangeEvents, true) ? c.resolve<ChangeEvents>(Tokens.ChangeEvents) : noChangeEvents;
  return {
    save: async (record) => {
      await writes.track(store.save(record));
      if (publish) changes.publish({ kind: 'graph-run', project: record.tool, id: record.runId, at: new Date().toISOString() });
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
  // Recorded runs: files under <data-dir>/graph-runs, or PostgreSQL when a database URL is configured (the adapter
  // and the driver load only then), so every server and dashboard of the database sees the same runs.
  container.register(GraphTokens.GraphRunStore, {
    useFactory: instanceCachingFactory((c) => {
      if (config.database) {
        const { PgGraphRunStore } = require('./infrastructure/postgres/pg-graph-run-store') as typeof import('./infrastructure/postgres/pg-graph-run-store');
        // The database notifies the change (every host's bridge publishes it, this one's too): no second event here.
        return recordingStore(c, new PgGraphRunStore(c.resolve<PgDatabase>(Tokens.Database), config.graphRunsPerTool), false);
      }
      const { FileGraphRunStore } = require('./infrastructure/file-graph-run-store') as typeof import('./infrastructure/file-graph-run-store');
      return recordingStore(c, new FileGraphRunStore(config.dataDir, config.graphRunsPerTool));
    }),
  });
  container.register(Tokens.ChangeReachers, { useFactory: instanceCachingFactory((c) => new GraphRunChangeReach(c.resolve<GraphRunStore>(GraphTokens.GraphRunStore))) });
  container.register(GraphTokens.InspectGraphExecution, { useClass: InspectGraphExecution }, { lifecycle: Scope.Singleton });
  // Read by the dashboard (recorded runs, drawings) and its run form.
  container.register(GraphTokens.ListGraphRuns, { useClass: ListGraphRuns }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetGraphRun, { useClass: GetGraphRun }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetGraphRunExecution, { useClass: GetGraphRunExecution }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.ListGraphTools, { useClass: ListGraphTools }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.DescribeGraphTool, { useClass: DescribeGraphTool }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.RunGraphTool, { useClass: RunGraphTool }, { lifecycle: Scope.Singleton });
  // The dashboard's debugger: the debug runs this process holds (a paused one left alone is stopped, logged).
  let debugRuns: GraphDebugRuns | undefined;
  container.register(GraphTokens.GraphDebugRuns, {
    useFactory: (c) =>
      (debugRuns ??= new GraphDebugRuns(c.resolve<GraphHost>(GraphTokens.GraphHost), {
        ...(c.isRegistered(Tokens.Logger, true) ? { logger: c.resolve<Logger>(Tokens.Logger).child({ component: 'graph debugger' }) } : {}),
      })),
  });
  container.register(GraphTokens.StartGraphDebugRun, { useClass: StartGraphDebugRun }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetGraphDebugRun, { useClass: GetGraphDebugRun }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.ControlGraphDebugRun, { useClass: ControlGraphDebugRun }, { lifecycle: Scope.Singleton });
  // The authoring tools' use cases (their tools are listed only with --graph-authoring; see graph-authoring.tools.ts).
  container.register(GraphTokens.GetGraphServer, { useClass: GetGraphServer }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.ListServedGraphTools, { useClass: ListServedGraphTools }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetGraphToolDefinition, { useClass: GetGraphToolDefinition }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.TestJsonata, { useClass: TestJsonata }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.TestJsonLogic, { useClass: TestJsonLogic }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.ListMcpServers, { useClass: ListMcpServers }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.GetMcpServerTool, { useClass: GetMcpServerTool }, { lifecycle: Scope.Singleton });
  // The graph files the authoring tools change (those --graphs names), locked per file under the data dir.
  container.register(GraphTokens.GraphFileEditor, {
    useFactory: instanceCachingFactory((c) => {
      const { GraphFileAuthor } = require('./infrastructure/graph-file-author') as typeof import('./infrastructure/graph-file-author');
      return new GraphFileAuthor(c.resolve<GraphHost>(GraphTokens.GraphHost), config.graphPaths, path.join(config.dataDir, 'graph-file-locks'));
    }),
  });
  // Replaced by the server's GraphToolPublisher when it serves graph files (run-server.ts); alone, a reload of the host
  // (refresh: the loaded files whose text on disk is no longer the one loaded).
  container.register(GraphTokens.GraphFileSync, {
    useFactory: instanceCachingFactory((c): GraphFileSync => ({
      reload: async (file) => {
        await c.resolve<GraphHost>(GraphTokens.GraphHost).reloadFiles([file]);
      },
      refresh: async () => {
        await c.resolve<GraphHost>(GraphTokens.GraphHost).reloadChanged();
      },
    })),
  });
  container.register(GraphTokens.AddGraphTool, { useClass: AddGraphTool }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.UpdateGraphTool, { useClass: UpdateGraphTool }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.DeleteGraphTool, { useClass: DeleteGraphTool }, { lifecycle: Scope.Singleton });
  container.register(GraphTokens.RunGraphToolDraft, { useClass: RunGraphToolDraft }, { lifecycle: Scope.Singleton });
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<Lifecycle>(Tokens.Lifecycle).onShutdown('graph runs', async () => {
      // Waits for their final records (`stopped`), so no dashboard is left showing a run that is no more.
      await host?.runner.stopAll();
    });
  }
};
