import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isWorkgraphError, ExternalToolError, InvalidGraphError, type WorkgraphError } from '../../../kernel/errors';
import type { GraphConfig, GraphTool, McpServerConfig, NodeExecutionRecord } from '../domain/types';
import type { McpServerDescription, McpServerRef } from '../application/ports/mcp-client-pool';
import type { CompiledGraph } from '../application/engine/compiled-graph';
import type { ExecutionController, ExecutionHandle, ExecutionOptions, ExecutionState } from '../application/engine/execution-types';
import { GraphRunner, type ExecutionSummary, type GraphRunnerOptions, type GraphToolInfo } from '../application/graph-runner';
import { GraphFileLoader, type GraphFileLoaderOptions } from './graph-file-loader';
import { graphFileRevision } from './graph-file-revision';
import type { GraphIssue } from '../domain/graph-issue';

export interface LoadGraphOptions extends GraphFileLoaderOptions, GraphRunnerOptions {
  /** Tool names the graphs may not use (the server's built-in tools). */
  reservedToolNames?: Iterable<string>;
}

/** A file that could not be (re)loaded, and why. */
export interface GraphLoadFailure {
  file: string;
  error: WorkgraphError;
}

const GRAPH_FILE = /\.(ya?ml|json)$/i;

/**
 * The library face of the graph module: loads graph files and runs their tools with the debugger API.
 *
 * ```ts
 * const host = await loadGraph('examples/graphs/sum_to_n.yaml');
 * const { promise, controller } = host.executeTool('sum_to_n', { n: 10 }, { breakpoints: ['check_condition'] });
 * ```
 */
export class GraphHost {
  readonly runner: GraphRunner;
  private readonly loader: GraphFileLoader;
  private readonly reserved: string[];
  /** Loaded graphs by absolute file path, in load order. */
  private readonly byFile = new Map<string, CompiledGraph>();

  constructor(private readonly options: LoadGraphOptions = {}) {
    this.runner = new GraphRunner(options);
    this.loader = new GraphFileLoader(options);
    this.reserved = [...(options.reservedToolNames ?? [])];
  }

  /**
   * Loads every graph file named (a folder means its `*.yaml`, `*.yml` and `*.json` files), replacing what was loaded.
   * All or nothing: on any problem nothing changes.
   * @throws InvalidGraphError for the first bad file (file, tool, node and line), or a tool-name clash naming both files.
   */
  async load(paths: string | readonly string[]): Promise<void> {
    const files = await expandGraphPaths(paths);
    const graphs: CompiledGraph[] = [];
    for (const file of files) graphs.push(await this.loader.load(file));
    this.runner.setGraphs(graphs, this.reserved);
    this.byFile.clear();
    for (const g of graphs) this.byFile.set(g.config.file!, g);
  }

  /**
   * Loads or reloads the given files one by one, keeping the last good version of any file that fails (a broken edit
   * never takes a working tool away). Files loaded before and not named stay loaded.
   * @returns the files loaded and those that failed, each with its error.
   */
  async reloadFiles(files: readonly string[]): Promise<{ loaded: string[]; failed: GraphLoadFailure[] }> {
    const loaded: string[] = [];
    const failed: GraphLoadFailure[] = [];
    for (const f of files) {
      const file = path.resolve(f);
      try {
        const graph = await this.loader.load(file);
        const candidate = new Map(this.byFile);
        candidate.set(file, graph);
        this.runner.setGraphs([...candidate.values()], this.reserved);
        this.byFile.set(file, graph);
        loaded.push(file);
      } catch (err) {
        failed.push({ file, error: isWorkgraphError(err) ? err : new InvalidGraphError(`${file}: ${(err as Error).message}`, { file }) });
      }
    }
    return { loaded, failed };
  }

  /**
   * Reloads the loaded files whose text on disk is no longer the text loaded (its revision differs: another process
   * or an editor wrote it), as {@link reloadFiles} does; a file that cannot be read now stays as loaded.
   */
  async reloadChanged(): Promise<{ loaded: string[]; failed: GraphLoadFailure[] }> {
    const stale: string[] = [];
    for (const [file, graph] of this.byFile) {
      const text = await fs.readFile(file, 'utf8').catch(() => undefined);
      if (text !== undefined && graphFileRevision(text) !== graph.config.revision) stale.push(file);
    }
    return this.reloadFiles(stale);
  }

  /** Stops serving a file's tools (e.g. the file was deleted). */
  unloadFile(file: string): boolean {
    const abs = path.resolve(file);
    if (!this.byFile.delete(abs)) return false;
    this.runner.setGraphs([...this.byFile.values()], this.reserved);
    return true;
  }

  /** The loaded graphs (config and compiled tools), in load order. */
  graphs(): CompiledGraph[] {
    return [...this.byFile.values()];
  }

  listTools(): GraphToolInfo[] {
    return this.runner.listTools();
  }

  /** See GraphRunner.toolDefinition. */
  toolDefinition(name: string): { tool: GraphTool; file?: string } | undefined {
    return this.runner.toolDefinition(name);
  }

  /** The MCP servers of `--mcp-config` (merged into every graph's own; a graph's definition of a name wins). */
  mcpConfigServers(): Record<string, McpServerConfig> {
    return { ...(this.options.mcpServers ?? {}) };
  }

  /**
   * Lists an MCP server's tools through the client pool (the connection graph runs use).
   * @throws ExternalToolError naming the server (also when this host has no client pool).
   */
  async describeMcpServer(server: McpServerRef, signal?: AbortSignal): Promise<McpServerDescription> {
    const pool = this.options.mcpClientPool;
    if (!pool?.describeServer) throw new ExternalToolError(`MCP server '${server.name}': this process has no MCP client to reach it`, { server: server.name });
    return pool.describeServer(server, signal);
  }

  /**
   * Checks a graph file's would-be text with every check a load makes (`workgraph validate`'s), without serving it.
   * @returns the compiled graph, or every problem.
   */
  checkText(file: string, text: string): Promise<{ graph?: CompiledGraph; issues: GraphIssue[] }> {
    return this.loader.readText(path.resolve(file), text);
  }

  /** Reads and checks a graph file without serving it (to draw the graph of a recorded run). */
  async readGraphFile(file: string): Promise<GraphConfig> {
    return (await this.loader.load(path.resolve(file))).config;
  }

  hasTool(name: string): boolean {
    return this.runner.hasTool(name);
  }

  /** See GraphRunner.executeTool. */
  executeTool(name: string, args: unknown, options?: ExecutionOptions): ExecutionHandle {
    return this.runner.executeTool(name, args, options);
  }

  /** See GraphRunner.executeDraft. */
  executeDraft(graph: CompiledGraph, name: string, args: unknown, options?: ExecutionOptions): ExecutionHandle {
    return this.runner.executeDraft(graph, name, args, options);
  }

  /**
   * Whether `graph` could be served as (the new version of) `file` beside the other loaded files: its tool names clash
   * with no built-in tool and no other file's tool.
   * @throws InvalidGraphError naming the clash, as a reload would.
   */
  checkServable(file: string, graph: CompiledGraph): void {
    const candidate = new Map(this.byFile);
    candidate.set(path.resolve(file), graph);
    new GraphRunner().setGraphs([...candidate.values()], this.reserved);
  }

  getExecution(executionId: string): ExecutionController | undefined {
    return this.runner.getExecution(executionId);
  }

  listExecutions(): ExecutionSummary[] {
    return this.runner.listExecutions();
  }

  getExecutionState(executionId: string): ExecutionState {
    return this.runner.getExecutionState(executionId);
  }

  getContextForExecution(executionId: string, executionIndex: number): Record<string, unknown> {
    return this.runner.getContextForExecution(executionId, executionIndex);
  }

  getExecutionByIndex(executionId: string, executionIndex: number): NodeExecutionRecord {
    return this.runner.getExecutionByIndex(executionId, executionIndex);
  }

  /** Stops every run and closes the MCP client pool given in the options (if any). */
  async close(): Promise<void> {
    await this.runner.stopAll();
    await this.options.mcpClientPool?.closeAll();
  }
}

/** Loads graph files (or folders of them) into a new {@link GraphHost}. */
export async function loadGraph(paths: string | readonly string[], options: LoadGraphOptions = {}): Promise<GraphHost> {
  const host = new GraphHost(options);
  await host.load(paths);
  return host;
}

/** Files named, with folders expanded to their graph files (sorted, not recursive). Absolute paths. */
export async function expandGraphPaths(paths: string | readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of typeof paths === 'string' ? [paths] : paths) {
    // fs would refuse it with ERR_INVALID_ARG_VALUE; say what is wrong, with the byte shown escaped.
    if (p.includes('\0')) throw new InvalidGraphError(`${JSON.stringify(p)}: graph path contains a NUL byte`, { file: p });
    const abs = path.resolve(p);
    let stat;
    try {
      stat = await fs.stat(abs);
    } catch (err) {
      throw new InvalidGraphError(`${abs}: graph path cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { file: abs });
    }
    if (stat.isDirectory()) {
      const names = (await fs.readdir(abs)).filter((n) => GRAPH_FILE.test(n)).sort();
      out.push(...names.map((n) => path.join(abs, n)));
    } else {
      out.push(abs);
    }
  }
  return out;
}
