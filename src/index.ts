/**
 * workgraph's public library API (`import { ... } from 'workgraph'`). Each module adds its own section.
 */

// ---- graph module: load mcpgraph-format graph files, run their tools, debug the runs ----
export { GraphHost, loadGraph, expandGraphPaths, type LoadGraphOptions, type GraphLoadFailure } from './modules/graph/infrastructure/graph-host';
export { GraphFileLoader, validateGraphFile, graphSchemaPath, type GraphFileProblem } from './modules/graph/infrastructure/graph-file-loader';
export { GraphRunner, type GraphRunnerOptions, type GraphToolInfo, type ExecutionSummary } from './modules/graph/application/graph-runner';
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
} from './modules/graph/application/engine/execution-types';
export { DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './modules/graph/application/engine/jsonata-expression';
export type { McpClientPool, McpServerRef, McpToolCallResult } from './modules/graph/application/ports/mcp-client-pool';
export { DEFAULT_EXECUTION_LIMITS } from './modules/graph/domain/types';
export type {
  GraphConfig,
  GraphTool,
  GraphNode,
  GraphFormat,
  NodeType,
  McpServerConfig,
  ExecutionLimits,
  NodeExecutionRecord,
} from './modules/graph/domain/types';

// ---- errors (shared by every module) ----
export * from './kernel/errors';
