/**
 * The graph module's public face: the only file code outside the module imports (docs/architecture.md). It stays
 * light — tokens, tool declarations, types and a lazy registration — so a server answers `tools/list` without loading
 * JSONata, yaml or the SDK client; the engine and host come through `graphRuntime()`.
 */
import type { ModuleRegistration } from '../../kernel/module-registration';

export { GraphTokens } from './application/graph.tokens';
export { graphTools } from './graph.tools';
export { graphAuthoringTools } from './graph-authoring.tools';
export type { GraphHost, LoadGraphOptions, GraphLoadFailure } from './infrastructure/graph-host';
export type { GraphFileProblem } from './infrastructure/graph-file-loader';
export type { GraphToolPublisher } from './infrastructure/graph-tool-publisher';
export type { SdkMcpClientPool } from './infrastructure/mcp/sdk-mcp-client-pool';
export type { GraphRunner, GraphRunnerOptions, GraphToolInfo, ExecutionSummary } from './application/graph-runner';
export type {
  ExecutionController,
  ExecutionHandle,
  ExecutionHooks,
  ExecutionOptions,
  ExecutionResult,
  ExecutionState,
  ExecutionStatus,
  ExecutionTelemetry,
  NodeTelemetry,
} from './application/engine/execution-types';
export type { ExpressionLimits } from './application/engine/jsonata-expression';
export type { McpClientPool, McpServerRef, McpToolCallResult } from './application/ports/mcp-client-pool';
export type {
  GraphConfig,
  GraphTool,
  GraphNode,
  GraphFormat,
  NodeType,
  McpServerConfig,
  ExecutionLimits,
  NodeExecutionRecord,
} from './domain/types';

/** The graph module's PostgreSQL schema migrations (loaded when a database is migrated, not at start). */
export function graphDatabaseMigrations(): import('../../kernel/postgres/migrations').Migration[] {
  return (require('./infrastructure/postgres/graph-runs-migrations') as typeof import('./infrastructure/postgres/graph-runs-migrations')).graphMigrations;
}

/** Registers the graph module: the graph host and graph_inspect (wiring loaded on the first call). */
export const registerGraphModule: ModuleRegistration = (container, config) =>
  (require('./graph.module') as typeof import('./graph.module')).graphModule(container, config);

/** Registers the MCP client pool that graph `mcp` nodes call (wiring loaded on the first call). */
export const registerMcpClientPoolModule: ModuleRegistration = (container, config) =>
  (require('./mcp-client-pool.module') as typeof import('./mcp-client-pool.module')).mcpClientPoolModule(container, config);

/** The engine, host, file loader and client pool, loaded on first use. */
export function graphRuntime(): typeof import('./graph.runtime') {
  return require('./graph.runtime') as typeof import('./graph.runtime');
}
export type { GraphRunRecord, GraphRunSummary, GraphDrawing } from './domain/graph-run-record';
export type { GraphRunStore } from './application/ports/graph-run-store';
export type { DebugAction } from './application/services/graph-debug-runs';
export type { DebugRunView, DebugExecution } from './application/services/debug-run-view';
