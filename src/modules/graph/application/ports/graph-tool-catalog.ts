import type { GraphConfig, GraphTool, McpServerConfig } from '../../domain/types';
import type { McpServerDescription, McpServerRef } from './mcp-client-pool';
import type { ExecutionHandle, ExecutionOptions, ExecutionState } from '../engine/execution-types';
import type { CompiledGraph } from '../engine/compiled-graph';
import type { GraphToolInfo } from '../graph-runner';

/** The graph tools a process serves, as the dashboard's use cases see them (GraphHost implements it). */
export interface GraphToolCatalog {
  listTools(): GraphToolInfo[];
  /** The loaded graph files, in load order. */
  graphs(): Array<{ config: GraphConfig }>;
  /** The definition of a served tool, or undefined. */
  toolDefinition(name: string): { tool: GraphTool; file?: string } | undefined;
  /** Reads and checks a graph file without serving it. @throws InvalidGraphError, StorageError. */
  readGraphFile(file: string): Promise<GraphConfig>;
  /** The MCP servers of `--mcp-config` (each graph's config has them merged in; its own definitions win). */
  mcpConfigServers(): Record<string, McpServerConfig>;
  /** Lists an MCP server's tools. @throws ExternalToolError naming the server; CancelledError. */
  describeMcpServer(server: McpServerRef, signal?: AbortSignal): Promise<McpServerDescription>;
  /** Runs a tool of a graph that is not served (an inline run). @throws NotFoundError when it has no such tool. */
  executeDraft(graph: CompiledGraph, name: string, args: unknown, options?: ExecutionOptions): ExecutionHandle;
  /** The state of a kept run (its history). @throws NotFoundError. */
  getExecutionState(executionId: string): ExecutionState;
  /** @throws NotFoundError for a tool not served. */
  executeTool(name: string, args: unknown, options?: ExecutionOptions): ExecutionHandle;
}
