/**
 * workgraph's public library API (`import { ... } from 'workgraph'`). Each module adds its own section, through the
 * module's index.ts (docs/architecture.md).
 */
import { graphRuntime } from './modules/graph';

// ---- graph module: load mcpgraph-format graph files, run their tools, debug the runs ----
const graph = graphRuntime();
export const GraphHost = graph.GraphHost;
export type GraphHost = InstanceType<typeof graph.GraphHost>;
export const GraphFileLoader = graph.GraphFileLoader;
export type GraphFileLoader = InstanceType<typeof graph.GraphFileLoader>;
export const GraphRunner = graph.GraphRunner;
export type GraphRunner = InstanceType<typeof graph.GraphRunner>;
export const { loadGraph, expandGraphPaths, validateGraphFile, graphSchemaPath, DEFAULT_EXPRESSION_LIMITS, DEFAULT_EXECUTION_LIMITS } = graph;
export type {
  LoadGraphOptions,
  GraphLoadFailure,
  GraphFileProblem,
  GraphRunnerOptions,
  GraphToolInfo,
  ExecutionSummary,
  ExecutionController,
  ExecutionHandle,
  ExecutionHooks,
  ExecutionOptions,
  ExecutionResult,
  ExecutionState,
  ExecutionStatus,
  ExecutionTelemetry,
  NodeTelemetry,
  ExpressionLimits,
  McpClientPool,
  McpServerRef,
  McpToolCallResult,
  GraphConfig,
  GraphTool,
  GraphNode,
  GraphFormat,
  NodeType,
  McpServerConfig,
  ExecutionLimits,
  NodeExecutionRecord,
} from './modules/graph';

// ---- errors (shared by every module) ----
export * from './kernel/errors';
