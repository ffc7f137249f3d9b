import type { GraphConfig, GraphTool, McpServerConfig } from '../../domain/types';
import type { McpServerDescription, McpServerRef } from './mcp-client-pool';
import type { ExecutionHandle, ExecutionOptions } from '../engine/execution-types';
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
  /** @throws NotFoundError for a tool not served. */
  executeTool(name: string, args: unknown, options?: ExecutionOptions): ExecutionHandle;
}
