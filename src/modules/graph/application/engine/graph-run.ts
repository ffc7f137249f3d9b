import { CancelledError, ExpressionError, InvalidArgumentsError, InvalidTransitionError, WorkgraphError, isWorkgraphError } from '../../../../kernel/errors';
import { ExecutionHistory } from '../../domain/execution-history';
import type { NodeExecutionError, NodeExecutionRecord } from '../../domain/types';
import type { GraphRunDeps } from './graph-run-deps';
import type { CompiledNode, CompiledTool } from './compiled-graph';
import type {
  ExecutionController,
  ExecutionOptions,
  ExecutionResult,
  ExecutionState,
  ExecutionStatus,
  ExecutionTelemetry,
} from './execution-types';
import { createHistoryBindings, type HistoryBindings } from './history-bindings';
import { callMcpNode, type McpNodeRun } from './mcp-node-call';
import { nodeFailure } from './node-failure';
import { plainJson } from './plain-json';
import { RunGate } from './run-gate';
import { checkResultSize, historyLimitError, limitBeforeNode } from './run-limits';
import { RunTelemetry } from './run-telemetry';

export type { GraphRunDeps } from './graph-run-deps';

/**
 * One execution of a graph tool: the engine loop and its debugger controller. The loop checks the limits before
 * each node, honours pause/step/breakpoints/stop at node boundaries (their state is in RunGate), and yields to the
 * event loop every few milliseconds of busy time so a long run never starves the server. Beside it: the limits and
 * the errors they end a run with (run-limits.ts), an `mcp` node's call (mcp-node-call.ts), what it needs from its host
 * (graph-run-deps.ts).
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
  private readonly gate: RunGate;
  private readonly telemetry?: RunTelemetry;
  /** What its `mcp` nodes' calls need (mcp-node-call.ts). */
  private readonly mcpRun: McpNodeRun;

  constructor(
    readonly executionId: string,
    private readonly compiled: CompiledTool,
    private readonly args: unknown,
    private readonly deps: GraphRunDeps,
    private readonly options: ExecutionOptions = {},
  ) {
    this.bindings = createHistoryBindings(this.history);
    this.gate = new RunGate(options.breakpoints ?? [], deps.now);
    if (options.telemetry) this.telemetry = new RunTelemetry();
    const gate = this.gate;
    this.mcpRun = {
      pool: deps.mcpClientPool,
      servers: compiled.graph.mcpServers,
      context: this.history.context,
      bindings: this.bindings,
      signal: gate.signal,
      stopped: () => gate.stopped,
      stoppedError: () => this.stoppedError(),
    };
    this.startTime = deps.now();
    const signal = options.signal;
    if (signal) {
      // Already aborted: the run stops before its first node (no MCP call can be in flight yet).
      if (signal.aborted) this.gate.stop();
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
    if (this.status === 'running' || this.status === 'not_started') this.gate.requestPause();
  }

  resume(): void {
    if (this.status !== 'paused') return;
    this.gate.resume();
  }

  step(): Promise<void> {
    if (this.status !== 'paused') {
      return Promise.reject(
        new InvalidTransitionError(`execution ${this.executionId}`, this.status, 'step', this.isDone ? [] : ['pause', 'stop']),
      );
    }
    return this.gate.step();
  }

  /**
   * Stops the run: the status is `stopped` at once (as mcpgraph's controller does), an in-flight MCP call is aborted
   * and the loop ends at the next node boundary; the run's promise then rejects with a CancelledError.
   */
  stop(): void {
    if (this.isDone) return;
    this.gate.stop();
    this.status = 'stopped';
  }

  setBreakpoints(nodeIds: string[]): void {
    this.gate.setBreakpoints(nodeIds);
  }

  clearBreakpoints(): void {
    this.gate.clearBreakpoints();
  }

  getBreakpoints(): string[] {
    return this.gate.getBreakpoints();
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
      ...(this.options.actor ? { actor: this.options.actor } : {}),
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
    if (!this.gate.stopped) this.status = 'running';
    try {
      const result = await this.loop();
      // stop() between the exit node and here: the caller was told `stopped`, so the run is stopped.
      if (this.gate.stopped) throw this.stoppedError();
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
      this.gate.releaseStepWaiters();
    }
  }

  private async loop(): Promise<unknown> {
    const { tool, graph, nodes } = this.compiled;
    const limits = graph.executionLimits;
    const hooks = this.options.hooks;
    const deps = this.deps;
    const gate = this.gate;
    let nodeId = tool.entryId;
    let first = true;
    let sliceStart = deps.now();

    for (;;) {
      // Limits, before each node.
      let now = deps.now();
      const passed = limitBeforeNode(tool.name, limits, nodeId, this.history.length, now - this.startTime - gate.pausedMs);
      if (passed) throw passed;
      if (now - sliceStart >= deps.yieldEveryMs) {
        await deps.yieldToEventLoop();
        sliceStart = now = deps.now();
      }
      if (gate.stopped) throw this.stoppedError();

      const cnode = nodes.get(nodeId)!;
      const index = this.history.length;
      this.currentNodeId = nodeId;

      // A breakpoint (or pause/step/startPaused) holds the run before onNodeStart fires, as in mcpgraph: the hook
      // sees the node when it is really about to run. onNodeStart returning false then pauses before the node too.
      if (gate.shouldPauseAt(nodeId) || (first && this.options.startPaused === true)) {
        await this.pauseBefore(index, nodeId);
        if (gate.stopped) throw this.stoppedError();
        now = sliceStart = deps.now();
      }
      if (hooks?.onNodeStart) {
        const goOn = await hooks.onNodeStart(index, nodeId, cnode.node, this.history.context);
        if (gate.stopped) throw this.stoppedError();
        if (goOn === false) {
          await this.pauseBefore(index, nodeId);
          if (gate.stopped) throw this.stoppedError();
        }
        now = sliceStart = deps.now();
      }
      // What the node sees (the context before it runs), for onNodeComplete/onNodeError; copied only when asked for.
      const input = hooks?.onNodeComplete || hooks?.onNodeError ? { ...this.history.context } : undefined;

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
        const error = gate.stopped ? this.stoppedError() : nodeFailure(err, cnode, branch);
        const endTime = deps.now();
        const stderrTail = (error as { details?: { stderrTail?: unknown } }).details?.stderrTail;
        this.history.append(nodeId, cnode.kind, startTime, endTime, null, {
          code: error.code,
          message: error.message,
          ...(typeof stderrTail === 'string' ? { stderrTail } : {}),
        });
        this.telemetry?.count(cnode.kind, nodeId, endTime - startTime, true);
        if (hooks?.onNodeError) await hooks.onNodeError(index, nodeId, cnode.node, error, input!);
        throw error;
      }
      const endTime = deps.now();
      this.history.append(nodeId, cnode.kind, startTime, endTime, output);
      if (this.history.byteSize > deps.maxHistoryBytes) throw historyLimitError(tool.name, deps.maxHistoryBytes, nodeId, this.history.length);
      if (this.telemetry) this.telemetry.count(cnode.kind, nodeId, endTime - startTime, false);
      if (hooks?.onNodeComplete) await hooks.onNodeComplete(index, nodeId, cnode.node, input!, output, endTime - startTime);

      if (cnode.kind === 'exit') return plainJson(checkResultSize(tool.name, deps.maxResultBytes, tool.wrapOutput ? { result: output } : output));
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
        return [await callMcpNode(cnode, this.mcpRun), cnode.node.next];
      case 'exit':
        return [this.history.previousNode(1), ''];
    }
  }

  private async pauseBefore(index: number, nodeId: string): Promise<void> {
    const hooks = this.options.hooks;
    const gate = this.gate;
    if (gate.stopped) return;
    this.status = 'paused';
    const woken = gate.enterPause();
    if (hooks?.onPause) await hooks.onPause(index, nodeId, this.history.context);
    if (!gate.stopped) await woken;
    gate.leavePause();
    if (gate.stopped) return;
    this.status = 'running';
    if (!gate.stopped && hooks?.onResume) await hooks.onResume();
  }

  private stoppedError(): CancelledError {
    return new CancelledError(`execution ${this.executionId} of tool '${this.compiled.tool.name}' was stopped`);
  }

  private telemetrySnapshot(): ExecutionTelemetry {
    const end = this.endTime ?? this.deps.now();
    return this.telemetry!.snapshot(end - this.startTime, this.gate.pausedMs, this.history.length);
  }
}
