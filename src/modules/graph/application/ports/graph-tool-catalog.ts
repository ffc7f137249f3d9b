import type { GraphConfig, GraphTool } from '../../domain/types';
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
  /** @throws NotFoundError for a tool not served. */
  executeTool(name: string, args: unknown, options?: ExecutionOptions): ExecutionHandle;
}
