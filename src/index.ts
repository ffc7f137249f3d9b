/**
 * workgraph's public library API (`import { ... } from 'workgraph'`). Each module adds its own section.
 */

// ---- graph module: load mcpgraph-format graph files, run their tools, debug the runs ----
export { GraphHost, loadGraph, expandGraphPaths, type LoadGraphOptions, type GraphLoadFailure } from './infrastructure/graph/graph-host';
export { GraphFileLoader, validateGraphFile, graphSchemaPath, type GraphFileProblem } from './infrastructure/graph/graph-file-loader';
export { GraphRunner, type GraphRunnerOptions, type GraphToolInfo, type ExecutionSummary } from './application/services/graph-runner';
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
} from './application/services/graph/execution-types';
export { DEFAULT_EXPRESSION_LIMITS, type ExpressionLimits } from './application/services/graph/jsonata-expression';
export type { McpClientPool, McpServerRef, McpToolCallResult } from './application/ports/mcp-client-pool';
export { DEFAULT_EXECUTION_LIMITS } from './domain/graph/types';
export type {
  GraphConfig,
  GraphTool,
  GraphNode,
  GraphFormat,
  NodeType,
  McpServerConfig,
  ExecutionLimits,
  NodeExecutionRecord,
} from './domain/graph/types';

// ---- errors (shared by every module) ----
export * from './kernel/errors';
