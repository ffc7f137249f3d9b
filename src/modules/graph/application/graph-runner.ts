import { InvalidGraphError, NotFoundError } from '../../../kernel/errors';
import type { GraphTool, NodeExecutionRecord } from '../domain/types';
import type { Clock } from '../../../kernel/clock';
import type { GraphRunStore } from './ports/graph-run-store';
import type { McpClientPool, McpServerRef } from './ports/mcp-client-pool';
import type { CompiledGraph, CompiledTool } from './engine/compiled-graph';
import type { ExecutionController, ExecutionHandle, ExecutionOptions, ExecutionState } from './engine/execution-types';
import { GraphRun } from './engine/graph-run';
import { RecentRuns } from './engine/recent-runs';
import { buildRunRecord } from './engine/run-record-builder';
import { DRAFT_DEFINITION_MAX_BYTES } from '../domain/graph-run-record';
import { graphToolDefinition } from '../domain/graph-tool-definition';
import { jsonByteLength } from '../../../kernel/json-size';
import { DEFAULT_LIVE_RECORD_MS, LIVE_RECORDED_EXECUTIONS, recordRun } from './engine/run-recorder';
import { UnwrittenRecords } from './engine/unwritten-records';

export interface GraphRunnerOptions {
  /** Client pool for `mcp` nodes; without one an `mcp` node fails with an ExternalToolError. */
  mcpClientPool?: McpClientPool;
  clock?: Clock;
  /** Finished runs kept inspectable. Default 100. */
  recentRunLimit?: number;
  /**
   * Bytes of history all finished runs kept inspectable may hold together; the oldest are dropped first. Default
   * 256 MiB (`--graph-history-mb`).
   */
  recentRunsMaxBytes?: number;
  /** Bytes of history one run may hold; past it the run ends with execution_limit. Default 1 GiB (`--graph-run-history-mb`). */
  maxRunHistoryBytes?: number;
  /** Largest result of a run, as JSON in bytes; larger is execution_limit. Default 16 MiB (`--graph-result-mb`). */
  maxResultBytes?: number;
  /** Busy time after which a run yields to the event loop. Default 4 ms. */
  yieldEveryMs?: number;
  /** Default: setImmediate. */
  yieldToEventLoop?: () => Promise<void>;
  /**
   * Where runs are recorded (the dashboard and other processes read them): live while they go on (`liveRecordMs`),
   * finally after they ended, on timers and later turns of the event loop: the engine's loop never waits for it.
   * Default: not recorded.
   */
  runStore?: GraphRunStore;
  /**
   * While a run goes on, its live record (status `running`/`paused`, its current node, the executions so far) is
   * saved to `runStore` every this many ms when it changed since (less often when saving it takes long), so dashboards
   * draw it as it happens;
   * 0 = only the final record. A live record holds the last 1,000 executions. Default 250.
   */
  liveRecordMs?: number;
  /** Node executions kept per recorded run (the last ones). Default 10,000. */
  maxRecordedExecutions?: number;
  /** Told when a record could not be written (the run's own answer is unaffected). */
  onRecordError?: (err: unknown, executionId: string) => void;
}

/** A graph tool as exposed: name, description and schemas (output schema always an object schema). */
export interface GraphToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  /** The graph file declaring it, when loaded from a file. */
  file?: string;
  /** Server title of the graph (`server.title`, else `server.name`). */
  graph: string;
}

/** Brief description of a kept run. */
export interface ExecutionSummary {
  executionId: string;
  tool: string;
  status: ExecutionState['status'];
  executionCount: number;
  startTime: number;
  endTime?: number;
}

/** Defaults of the memory bounds (documented in docs/writing-graphs.md "Limits" and docs/configuration.md). */
export const DEFAULT_RECENT_RUNS_MAX_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_RUN_HISTORY_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

const defaultYield = (): Promise<void> =>
  new Promise<void>((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });

let runCounter = 0;
const noop = (): void => undefined;
/** How long stopAll waits for the stopped runs and their records (a run ends at its next node boundary). */
const STOP_ALL_WAIT_MS = 10_000;

/**
 * Runs the tools of the loaded graphs and keeps their runs inspectable. Graphs are compiled once (see compileGraph)
 * and shared by every run; each run has its own history, context and controller, so runs never mix.
 */
export class GraphRunner {
  private tools = new Map<string, CompiledTool>();
  private readonly runs: RecentRuns;
  private readonly prefix = Math.random().toString(36).slice(2, 8);
  /** The final records still being written (a run's answer waits for its own when they hold too much). */
  private readonly recordings: UnwrittenRecords;

  constructor(private readonly options: GraphRunnerOptions = {}) {
    this.runs = new RecentRuns(options.recentRunLimit ?? 100, options.recentRunsMaxBytes ?? DEFAULT_RECENT_RUNS_MAX_BYTES);
    this.recordings = new UnwrittenRecords(options.recentRunsMaxBytes ?? DEFAULT_RECENT_RUNS_MAX_BYTES);
  }

  /**
   * Replaces the set of graphs served. Tool names must be unique across them and must not be in `reserved`
   * (built-in tool names).
   * @throws InvalidGraphError naming both files on a clash; nothing is replaced then.
   */
  setGraphs(graphs: readonly CompiledGraph[], reserved: Iterable<string> = []): void {
    const reservedSet = new Set(reserved);
    const next = new Map<string, CompiledTool>();
    for (const g of graphs) {
      for (const [name, tool] of g.tools) {
        const file = g.config.file ?? '(in-memory graph)';
        if (reservedSet.has(name)) {
          throw new InvalidGraphError(
            `${file}: tool '${name}' clashes with workgraph's built-in tool '${name}'; this file is not served (the others are): rename the tool, or serve the file alone as mcpgraph does with \`workgraph serve --graphs ${file} --only-graphs\` (or leave that module out with --modules)`,
            {
              file,
              tool: name,
              ...(tool.tool.position ? { line: tool.tool.position.line } : {}),
            },
          );
        }
        const other = next.get(name);
        if (other) {
          const otherFile = other.graph.file ?? '(in-memory graph)';
          throw new InvalidGraphError(`${file}: tool '${name}' is also declared in ${otherFile}`, {
            file,
            tool: name,
            ...(tool.tool.position ? { line: tool.tool.position.line } : {}),
          });
        }
        next.set(name, tool);
      }
    }
    this.tools = next;
    // Servers whose configuration no graph declares any more (an edited or removed graph file) are closed.
    const servers = new Map<string, McpServerRef>();
    for (const g of graphs) {
      for (const [name, config] of Object.entries(g.config.mcpServers)) servers.set(`${name}\u0000${JSON.stringify(config)}`, { name, config });
    }
    void this.options.mcpClientPool?.retainOnly?.([...servers.values()]).catch(() => undefined);
  }

  listTools(): GraphToolInfo[] {
    return [...this.tools.values()].map(({ tool, graph }) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      ...(graph.file ? { file: graph.file } : {}),
      graph: graph.server.title ?? graph.server.name,
    }));
  }

  /** The definition of a served tool (its nodes, as loaded) and the file declaring it, or undefined. */
  toolDefinition(name: string): { tool: GraphTool; file?: string } | undefined {
    const c = this.tools.get(name);
    return c ? { tool: c.tool, ...(c.graph.file ? { file: c.graph.file } : {}) } : undefined;
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  /**
   * Starts a run of tool `name`. The run starts on a later tick, so hooks, breakpoints and `pause()` set right after
   * this call apply from the first node.
   * @throws NotFoundError for an unknown tool. Failures of the run reject `promise` (InvalidArgumentsError for bad
   *   arguments, ExpressionError, ExternalToolError, ExecutionLimitError, CancelledError when stopped).
   */
  executeTool(name: string, args: unknown, options: ExecutionOptions = {}): ExecutionHandle {
    const compiled = this.tools.get(name);
    if (!compiled) throw new NotFoundError('graph tool', name);
    return this.start(compiled, args, options);
  }

  /**
   * Starts a run of tool `name` of a graph that is not served (the authoring tools' inline run of a draft): the same
   * engine, limits, recent-run keeping and recording as a served tool's run.
   * @throws NotFoundError when `graph` has no tool `name`.
   */
  executeDraft(graph: CompiledGraph, name: string, args: unknown, options: ExecutionOptions = {}): ExecutionHandle {
    const compiled = graph.tools.get(name);
    if (!compiled) throw new NotFoundError('graph tool', name);
    // The run keeps the definition it ran (its tool is in no file, or not as it is there), within a bound.
    const definition = graphToolDefinition(compiled.tool);
    const size = jsonByteLength(definition, DRAFT_DEFINITION_MAX_BYTES);
    const draft =
      size <= DRAFT_DEFINITION_MAX_BYTES
        ? { definition }
        : { omitted: `the definition is over ${DRAFT_DEFINITION_MAX_BYTES / 1024} KiB of JSON: not kept with the run, which is not drawn` };
    return this.start(compiled, args, options, draft);
  }

  private start(compiled: CompiledTool, args: unknown, options: ExecutionOptions, draft?: { definition?: ReturnType<typeof graphToolDefinition>; omitted?: string }): ExecutionHandle {
    const clock = this.options.clock;
    const executionId = `${this.prefix}-${(++runCounter).toString(36)}-${Date.now().toString(36)}`;
    const run = new GraphRun(
      executionId,
      compiled,
      args ?? {},
      {
        mcpClientPool: this.options.mcpClientPool,
        now: clock ? () => clock.now() : Date.now,
        yieldToEventLoop: this.options.yieldToEventLoop ?? defaultYield,
        yieldEveryMs: this.options.yieldEveryMs ?? 4,
        maxHistoryBytes: this.options.maxRunHistoryBytes ?? DEFAULT_MAX_RUN_HISTORY_BYTES,
        maxResultBytes: this.options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
      },
      options,
    );
    this.runs.add(run);
    const prune = (): void => this.runs.prune();
    run.promise.then(prune, prune);
    const store = this.options.runStore;
    if (store) {
      const source = { file: compiled.graph.file, graph: compiled.graph.server.title ?? compiled.graph.server.name, ...(draft ? { draft } : {}) };
      const recorded = recordRun({
        store,
        state: () => run.getState(),
        // A live record holds the newest executions the run page shows; the final one up to maxRecordedExecutions.
        build: (state, live) => buildRunRecord(state, args ?? {}, source, live ? Math.min(LIVE_RECORDED_EXECUTIONS, this.options.maxRecordedExecutions ?? LIVE_RECORDED_EXECUTIONS) : this.options.maxRecordedExecutions),
        ended: run.promise,
        liveEveryMs: this.options.liveRecordMs ?? DEFAULT_LIVE_RECORD_MS,
        onError: (err) => this.options.onRecordError?.(err, executionId),
      });
      this.recordings.add(recorded, run);
      // Backpressure: while the records not yet written hold too much, the answer waits for this run's own.
      const answered = run.promise.then(
        async (value) => {
          await this.recordings.roomFor(recorded);
          return value;
        },
        async (err: unknown) => {
          await this.recordings.roomFor(recorded);
          throw err;
        },
      );
      answered.catch(noop);
      return { executionId, promise: answered, controller: run };
    }
    return { executionId, promise: run.promise, controller: run };
  }

  /** The controller of a kept run, or undefined. */
  getExecution(executionId: string): ExecutionController | undefined {
    return this.runs.get(executionId);
  }

  /** Kept runs, oldest first. */
  listExecutions(): ExecutionSummary[] {
    return this.runs.all().map((r) => {
      const s = r.getState();
      return {
        executionId: s.executionId,
        tool: s.tool,
        status: s.status,
        executionCount: s.executionCount,
        startTime: s.startTime,
        ...(s.endTime !== undefined ? { endTime: s.endTime } : {}),
      };
    });
  }

  /** @throws NotFoundError when the run is unknown or no longer kept. */
  getExecutionState(executionId: string): ExecutionState {
    return this.require(executionId).getState();
  }

  /** The context node `executionIndex` of the run saw. @throws NotFoundError for an unknown run or index. */
  getContextForExecution(executionId: string, executionIndex: number): Record<string, unknown> {
    const ctx = this.require(executionId).getContextForExecution(executionIndex);
    if (!ctx) throw new NotFoundError('execution index', `${executionId}#${executionIndex}`);
    return ctx;
  }

  /** @throws NotFoundError for an unknown run or index. */
  getExecutionByIndex(executionId: string, executionIndex: number): NodeExecutionRecord {
    const rec = this.require(executionId).getExecutionByIndex(executionIndex);
    if (!rec) throw new NotFoundError('execution index', `${executionId}#${executionIndex}`);
    return rec;
  }

  /**
   * Stops every run still going (shutdown). Settles once they ended and every record still being written — their final
   * ones `stopped` among them — was saved: a process that exits right after leaves no run recorded as still going.
   */
  async stopAll(): Promise<void> {
    const runs = this.runs.all();
    for (const run of runs) run.stop();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STOP_ALL_WAIT_MS);
      timer.unref?.();
    });
    const ended = Promise.all(runs.map((r) => r.promise.then(noop, noop))).then(() => this.recordings.drained());
    await Promise.race([ended, bound]);
    clearTimeout(timer);
  }

  private require(executionId: string): GraphRun {
    const run = this.runs.get(executionId);
    if (!run) throw new NotFoundError('execution', executionId, `execution '${executionId}' not found (only the last runs are kept)`);
    return run;
  }
}
