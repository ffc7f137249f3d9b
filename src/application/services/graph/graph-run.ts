import {
  CancelledError,
  ExecutionLimitError,
  ExpressionError,
  ExternalToolError,
  InvalidArgumentsError,
  InvalidTransitionError,
  WorkgraphError,
  isWorkgraphError,
} from '../../../domain/errors';
import { ExecutionHistory } from '../../../domain/graph/execution-history';
import type { NodeExecutionError, NodeExecutionRecord } from '../../../domain/graph/types';
import type { McpClientPool } from '../../ports/mcp-client-pool';
import type { CompiledNode, CompiledTool } from './compiled-graph';
import { evaluateArgs } from './compiled-args';
import type {
  ExecutionController,
  ExecutionOptions,
  ExecutionResult,
  ExecutionState,
  ExecutionStatus,
  ExecutionTelemetry,
  NodeTelemetry,
} from './execution-types';
import { createHistoryBindings, type HistoryBindings } from './history-bindings';
import { toExpressionError } from './jsonata-expression';
import { mcpErrorText, mcpNodeOutput } from './mcp-output';

/** What a run needs from its host. */
export interface GraphRunDeps {
  mcpClientPool?: McpClientPool;
  /** Milliseconds since the epoch (record times). */
  now: () => number;
  /** Lets other work run (pings, cancellations, other runs). Default: setImmediate. */
  yieldToEventLoop: () => Promise<void>;
  /** The run yields after this much busy time. Default 4 ms: time-sliced, not per node. */
  yieldEveryMs: number;
}

/**
 * One execution of a graph tool: the engine loop and its debugger controller. The loop checks the limits before
 * each node, honours pause/step/breakpoints/stop at node boundaries, and yields to the event loop every few
 * milliseconds of busy time so a long run never starves the server.
 */
export class GraphRun implements ExecutionController {
  readonly history = new ExecutionHistory();
  readonly promise: Promise<ExecutionResult>;
  private readonly bindings: HistoryBindings;
  private status: ExecutionStatus = 'not_started';
  private currentNodeId: string | null = null;
  private readonly startTime: number;
  private endTime?: number;
  private result?: unknown;
  private error?: NodeExecutionError;
  private breakpoints: Set<string>;
  private pauseRequested = false;
  private stepRequested = false;
  private stopRequested = false;
  private wake?: () => void;
  private stepWaiters: Array<() => void> = [];
  private pausedMs = 0;
  private readonly telemetry?: { byNodeType: Map<string, NodeTelemetry>; byNodeId: Map<string, NodeTelemetry>; errors: number };
  /** Aborts an in-flight MCP call when the run is stopped. */
  private readonly abort = new AbortController();

  constructor(
    readonly executionId: string,
    private readonly compiled: CompiledTool,
    private readonly args: unknown,
    private readonly deps: GraphRunDeps,
    private readonly options: ExecutionOptions = {},
  ) {
    this.bindings = createHistoryBindings(this.history);
    this.breakpoints = new Set(options.breakpoints ?? []);
    if (options.telemetry) this.telemetry = { byNodeType: new Map(), byNodeId: new Map(), errors: 0 };
    this.startTime = deps.now();
    const signal = options.signal;
    if (signal) {
      if (signal.aborted) this.stopRequested = true;
      else signal.addEventListener('abort', () => this.stop(), { once: true });
    }
    this.promise = this.run();
    // The caller may never look at the promise (fire-and-inspect debugging); a failed run must not crash the process.
    this.promise.catch(() => undefined);
  }

  get toolName(): string {
    return this.compiled.tool.name;
  }

  get isDone(): boolean {
    return this.status === 'finished' || this.status === 'error' || this.status === 'stopped';
  }

  // ---- controller ----

  pause(): void {
    if (this.status === 'running' || this.status === 'not_started') this.pauseRequested = true;
  }

  resume(): void {
    if (this.status !== 'paused') return;
    this.pauseRequested = false;
    this.wake?.();
  }

  step(): Promise<void> {
    if (this.status !== 'paused') {
      return Promise.reject(
        new InvalidTransitionError(`execution ${this.executionId}`, this.status, 'step', this.isDone ? [] : ['pause', 'stop']),
      );
    }
    this.stepRequested = true;
    const done = new Promise<void>((resolve) => this.stepWaiters.push(resolve));
    this.wake?.();
    return done;
  }

  stop(): void {
    if (this.isDone) return;
    this.stopRequested = true;
    this.abort.abort();
    this.wake?.();
  }

  setBreakpoints(nodeIds: string[]): void {
    this.breakpoints = new Set(nodeIds);
  }

  clearBreakpoints(): void {
    this.breakpoints = new Set();
  }

  getBreakpoints(): string[] {
    return [...this.breakpoints];
  }

  getState(): ExecutionState {
    return {
      executionId: this.executionId,
      tool: this.compiled.tool.name,
      status: this.status,
      currentNodeId: this.currentNodeId,
      executionCount: this.history.length,
      startTime: this.startTime,
      ...(this.endTime !== undefined ? { endTime: this.endTime } : {}),
      breakpoints: this.getBreakpoints(),
      history: this.history.all(),
      context: { ...this.history.context },
      ...(this.status === 'finished' ? { result: this.result } : {}),
      ...(this.error ? { error: this.error } : {}),
      ...(this.telemetry ? { telemetry: this.telemetrySnapshot() } : {}),
    };
  }

  getContextForExecution(executionIndex: number): Record<string, unknown> | undefined {
    return this.history.contextAt(executionIndex);
  }

  getExecutionByIndex(executionIndex: number): NodeExecutionRecord | undefined {
    return this.history.byIndex(executionIndex);
  }

  // ---- engine ----

  private async run(): Promise<ExecutionResult> {
    // Start on a later tick: the caller gets the controller before the first node runs (and before any hook fires).
    await Promise.resolve();
    this.status = 'running';
    try {
      const result = await this.loop();
      this.result = result;
      this.status = 'finished';
      return {
        executionId: this.executionId,
        result,
        history: this.history.all(),
        ...(this.telemetry ? { telemetry: this.telemetrySnapshot() } : {}),
      };
    } catch (err) {
      const e = isWorkgraphError(err) ? err : new WorkgraphError('internal_error', `execution ${this.executionId}: ${(err as Error)?.message ?? String(err)}`);
      this.status = e instanceof CancelledError ? 'stopped' : 'error';
      this.error = { code: e.code, message: e.message };
      throw e;
    } finally {
      this.endTime = this.deps.now();
      this.currentNodeId = null;
      this.resolveStepWaiters();
    }
  }

  private async loop(): Promise<unknown> {
    const { tool, graph, nodes } = this.compiled;
    const limits = graph.executionLimits;
    const hooks = this.options.hooks;
    const deps = this.deps;
    let nodeId = tool.entryId;
    let first = true;
    let sliceStart = deps.now();

    for (;;) {
      // Limits, before each node.
      if (this.history.length >= limits.maxNodeExecutions) {
        throw new ExecutionLimitError(
          'maxNodeExecutions',
          limits.maxNodeExecutions,
          `tool '${tool.name}': execution limit maxNodeExecutions (${limits.maxNodeExecutions}) exceeded before node '${nodeId}' (raise executionLimits.maxNodeExecutions in the graph file)`,
        );
      }
      let now = deps.now();
      if (now - this.startTime - this.pausedMs > limits.maxExecutionTimeMs) {
        throw new ExecutionLimitError(
          'maxExecutionTimeMs',
          limits.maxExecutionTimeMs,
          `tool '${tool.name}': execution limit maxExecutionTimeMs (${limits.maxExecutionTimeMs} ms) exceeded before node '${nodeId}' (raise executionLimits.maxExecutionTimeMs in the graph file)`,
        );
      }
      if (now - sliceStart >= deps.yieldEveryMs) {
        await deps.yieldToEventLoop();
        sliceStart = now = deps.now();
      }
      if (this.stopRequested) throw this.stoppedError();

      const cnode = nodes.get(nodeId)!;
      const index = this.history.length;
      this.currentNodeId = nodeId;

      let pause = this.pauseRequested || this.stepRequested || this.breakpoints.has(nodeId) || (first && this.options.startPaused === true);
      if (hooks?.onNodeStart) {
        if ((await hooks.onNodeStart(index, nodeId, cnode.node, this.history.context)) === false) pause = true;
      }
      if (pause) {
        await this.pauseBefore(index, nodeId);
        if (this.stopRequested) throw this.stoppedError();
        now = sliceStart = deps.now();
      }

      const startTime = now;
      let output: unknown;
      let next: string;
      // The switch condition being evaluated, for the error message.
      let branch = -1;
      try {
        // transform and switch nodes — the body of a tight loop — are evaluated right here: going through an async
        // helper would add a promise hop and an allocation per node, about a tenth of a small node's cost.
        switch (cnode.kind) {
          case 'transform':
            output = await cnode.expr.evaluate(this.history.context, this.bindings);
            next = cnode.node.next;
            break;
          case 'switch': {
            let target: string | undefined;
            const branches = cnode.branches;
            for (branch = 0; branch < branches.length; branch++) {
              const b = branches[branch]!;
              if (b.rule === undefined || (await b.rule.evaluate(this.history.context, this.bindings))) {
                target = b.target;
                break;
              }
            }
            if (target === undefined) {
              throw new ExpressionError(`node '${nodeId}': no switch condition matched and there is no default`, { node: nodeId });
            }
            output = next = target;
            break;
          }
          default:
            [output, next] = await this.execute(cnode);
        }
      } catch (err) {
        const error = this.stopRequested ? this.stoppedError() : nodeFailure(err, cnode, branch);
        const endTime = deps.now();
        this.history.add({
          executionIndex: index,
          nodeId,
          nodeType: cnode.kind,
          startTime,
          endTime,
          duration: endTime - startTime,
          output: null,
          error: { code: error.code, message: error.message },
        });
        this.count(cnode.kind, nodeId, endTime - startTime, true);
        if (hooks?.onNodeError) await hooks.onNodeError(index, nodeId, cnode.node, error);
        throw error;
      }
      const endTime = deps.now();
      this.history.add({ executionIndex: index, nodeId, nodeType: cnode.kind, startTime, endTime, duration: endTime - startTime, output });
      if (this.telemetry) this.count(cnode.kind, nodeId, endTime - startTime, false);
      if (hooks?.onNodeComplete) await hooks.onNodeComplete(index, nodeId, cnode.node, output, endTime - startTime);

      if (cnode.kind === 'exit') return plainJson(tool.wrapOutput ? { result: output } : output);
      nodeId = next;
      first = false;
    }
  }

  /** Runs an entry, mcp or exit node (transform and switch run inline in the loop): its output and the next node. */
  private async execute(cnode: Exclude<CompiledNode, { kind: 'transform' | 'switch' }>): Promise<[unknown, string]> {
    switch (cnode.kind) {
      case 'entry': {
        const problem = this.compiled.validateInput(this.args);
        if (problem !== undefined) {
          throw new InvalidArgumentsError(`tool '${this.compiled.tool.name}': invalid arguments: ${problem}`, problem.split(':')[0]);
        }
        return [this.args, cnode.node.next];
      }
      case 'mcp':
        return [await this.callMcp(cnode), cnode.node.next];
      case 'exit':
        return [this.history.previousNode(1), ''];
    }
  }

  private async callMcp(cnode: Extract<CompiledNode, { kind: 'mcp' }>): Promise<unknown> {
    const { node } = cnode;
    let source = '';
    let args: unknown;
    try {
      args = await evaluateArgs(cnode.args, this.history.context, this.bindings, (s) => (source = s));
    } catch (err) {
      throw toExpressionError(err, node.id, source, 'argument expression');
    }
    const pool = this.deps.mcpClientPool;
    const where = `node '${node.id}': tool '${node.tool}' on server '${node.server}'`;
    if (!pool) throw new ExternalToolError(`${where}: no MCP client pool is configured`, { node: node.id, server: node.server, tool: node.tool });
    const config = this.compiled.graph.mcpServers[node.server]!;
    let result;
    try {
      result = await pool.callTool({ name: node.server, config }, node.tool, args, this.abort.signal);
    } catch (err) {
      if (err instanceof CancelledError || this.stopRequested) throw this.stoppedError();
      const e = err as { message?: string; details?: { stderrTail?: unknown }; stderrTail?: unknown };
      const tail = typeof e.details?.stderrTail === 'string' ? e.details.stderrTail : typeof e.stderrTail === 'string' ? e.stderrTail : undefined;
      throw new ExternalToolError(`${where} failed: ${e.message ?? String(err)}`, {
        node: node.id,
        server: node.server,
        tool: node.tool,
        ...(tail ? { stderrTail: tail } : {}),
      });
    }
    if (result.isError) {
      throw new ExternalToolError(`${where} returned an error: ${mcpErrorText(result)}`, { node: node.id, server: node.server, tool: node.tool });
    }
    return mcpNodeOutput(result);
  }

  private async pauseBefore(index: number, nodeId: string): Promise<void> {
    const hooks = this.options.hooks;
    this.status = 'paused';
    this.pauseRequested = false;
    this.stepRequested = false;
    // The wake-up is armed before anything can observe the pause, so a resume()/step()/stop() called from onPause or
    // from a step() continuation is never lost.
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    // A step ends when the run pauses again.
    this.resolveStepWaiters();
    const pausedAt = this.deps.now();
    if (!this.stopRequested) {
      if (hooks?.onPause) await hooks.onPause(index, nodeId);
      if (!this.stopRequested) await woken;
    }
    this.wake = undefined;
    this.pausedMs += this.deps.now() - pausedAt;
    this.status = 'running';
    if (!this.stopRequested && hooks?.onResume) await hooks.onResume();
  }

  private resolveStepWaiters(): void {
    const waiters = this.stepWaiters;
    this.stepWaiters = [];
    for (const w of waiters) w();
  }

  private stoppedError(): CancelledError {
    return new CancelledError(`execution ${this.executionId} of tool '${this.compiled.tool.name}' was stopped`);
  }

  private count(nodeType: string, nodeId: string, ms: number, failed: boolean): void {
    const t = this.telemetry;
    if (!t) return;
    if (failed) t.errors++;
    for (const [map, key] of [[t.byNodeType, nodeType], [t.byNodeId, nodeId]] as const) {
      let entry = map.get(key);
      if (!entry) map.set(key, (entry = { count: 0, totalMs: 0, errors: 0 }));
      entry.count++;
      entry.totalMs += ms;
      if (failed) entry.errors++;
    }
  }

  private telemetrySnapshot(): ExecutionTelemetry {
    const t = this.telemetry!;
    const end = this.endTime ?? this.deps.now();
    return {
      totalDurationMs: end - this.startTime,
      pausedMs: this.pausedMs,
      nodeExecutions: this.history.length,
      errorCount: t.errors,
      byNodeType: Object.fromEntries([...t.byNodeType].map(([k, v]) => [k, { ...v }])),
      byNodeId: Object.fromEntries([...t.byNodeId].map(([k, v]) => [k, { ...v }])),
    };
  }
}

/**
 * What a failed node's run ends with: workgraph errors as they are; what a transform expression or a switch condition
 * threw as an ExpressionError naming node and expression (`branch` is the condition being evaluated); anything else
 * as an internal error naming the node.
 */
function nodeFailure(err: unknown, cnode: CompiledNode, branch: number): WorkgraphError {
  if (isWorkgraphError(err)) return err;
  const nodeId = cnode.node.id;
  if (cnode.kind === 'transform') return toExpressionError(err, nodeId, cnode.expr.source, 'transform expression');
  const rule = cnode.kind === 'switch' ? cnode.branches[branch]?.rule : undefined;
  if (rule) return toExpressionError(err, nodeId, rule.varSources.join(' | '), `conditions[${branch}] rule`);
  return new WorkgraphError('internal_error', `node '${nodeId}': ${(err as Error)?.message ?? String(err)}`, { node: nodeId });
}

/**
 * The tool result as plain JSON: JSONata builds null-prototype objects and arrays tagged as sequences; the caller
 * gets ordinary values (undefined becomes null). Done once per run, on the result only.
 */
function plainJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as unknown);
}
