import {
  CancelledError,
  ExecutionLimitError,
  ExpressionError,
  ExternalToolError,
  InvalidArgumentsError,
  InvalidTransitionError,
  WorkgraphError,
  isWorkgraphError,
} from '../../../../kernel/errors';
import { ExecutionHistory } from '../../domain/execution-history';
import { jsonByteLength, LARGEST_SENDABLE_RESULT_BYTES, MAX_STRING_CHARS } from '../../../../kernel/json-size';
import type { NodeExecutionError, NodeExecutionRecord } from '../../domain/types';
import type { McpClientPool } from '../ports/mcp-client-pool';
import type { CompiledNode, CompiledTool } from './compiled-graph';
import { evaluateArgs } from './compiled-args';
import type {
  ExecutionController,
  ExecutionOptions,
  ExecutionResult,
  ExecutionState,
  ExecutionStatus,
  ExecutionTelemetry,
} from './execution-types';
import { createHistoryBindings, type HistoryBindings } from './history-bindings';
import { toExpressionError } from './jsonata-expression';
import { mcpErrorText, mcpNodeOutput } from './mcp-output';
import { nodeFailure } from './node-failure';
import { plainJson } from './plain-json';
import { RunGate } from './run-gate';
import { RunTelemetry } from './run-telemetry';

/** What a run needs from its host. */
export interface GraphRunDeps {
  mcpClientPool?: McpClientPool;
  /** Milliseconds since the epoch (record times). */
  now: () => number;
  /**
   * The most bytes one run's history may hold (see ExecutionHistory.byteSize); past it the run ends with an
   * execution_limit error naming the cap. Default 1 GiB.
   */
  maxHistoryBytes: number;
  /** The largest result a run may return, as JSON text in bytes; larger is an execution_limit error. Default 16 MiB. */
  maxResultBytes: number;
  /** Lets other work run (pings, cancellations, other runs). Default: setImmediate. */
  yieldToEventLoop: () => Promise<void>;
  /** The run yields after this much busy time. Default 4 ms: time-sliced, not per node. */
  yieldEveryMs: number;
}

/**
 * One execution of a graph tool: the engine loop and its debugger controller. The loop checks the limits before
 * each node, honours pause/step/breakpoints/stop at node boundaries (their state is in RunGate), and yields to the
 * event loop every few milliseconds of busy time so a long run never starves the server.
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
      if (this.history.length >= limits.maxNodeExecutions) {
        throw new ExecutionLimitError(
          'maxNodeExecutions',
          limits.maxNodeExecutions,
          `tool '${tool.name}': execution limit maxNodeExecutions (${limits.maxNodeExecutions}) exceeded before node '${nodeId}' (raise executionLimits.maxNodeExecutions in the graph file)`,
        );
      }
      let now = deps.now();
      if (now - this.startTime - gate.pausedMs > limits.maxExecutionTimeMs) {
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
      if (this.history.byteSize > deps.maxHistoryBytes) throw this.historyLimitError(nodeId);
      if (this.telemetry) this.telemetry.count(cnode.kind, nodeId, endTime - startTime, false);
      if (hooks?.onNodeComplete) await hooks.onNodeComplete(index, nodeId, cnode.node, input!, output, endTime - startTime);

      if (cnode.kind === 'exit') return plainJson(this.checkResultSize(tool.wrapOutput ? { result: output } : output));
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
      result = await pool.callTool({ name: node.server, config }, node.tool, args, this.gate.signal);
    } catch (err) {
      if (err instanceof CancelledError || this.gate.stopped) throw this.stoppedError();
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

  /** A run whose history passed the per-run cap ends here (the cap guards the server's memory, not the graph's logic). */
  private historyLimitError(nodeId: string): ExecutionLimitError {
    const cap = this.deps.maxHistoryBytes;
    return new ExecutionLimitError(
      'maxHistoryBytes',
      cap,
      `tool '${this.compiled.tool.name}': execution limit maxHistoryBytes (${formatBytes(cap)}) exceeded after node '${nodeId}' (execution ${this.history.length}): the run's history holds too much (raise --graph-run-history-mb)`,
    );
  }

  /**
   * A result is answered as JSON text (twice: the text block and structuredContent), so one over the cap — or too large
   * for one answer at all (past V8's longest string) — is an execution_limit error instead of an answer that never
   * comes. Measured without building the text, stopping just past the limit: a result far over it costs no memory.
   */
  private checkResultSize(result: unknown): unknown {
    const cap = this.deps.maxResultBytes;
    const limit = Math.min(cap, LARGEST_SENDABLE_RESULT_BYTES);
    const size = jsonByteLength(result, limit);
    if (size <= limit) return result;
    const why =
      cap <= LARGEST_SENDABLE_RESULT_BYTES
        ? `the result is over ${formatBytes(cap)} as JSON (raise --graph-result-mb)`
        : `the result is over ${formatBytes(LARGEST_SENDABLE_RESULT_BYTES)} as JSON, more than one answer can carry (an answer holds it twice and V8's longest string is ${formatBytes(MAX_STRING_CHARS)})`;
    throw new ExecutionLimitError('maxResultBytes', cap, `tool '${this.compiled.tool.name}': execution limit maxResultBytes (${formatBytes(cap)}) exceeded: ${why}`);
  }

  private stoppedError(): CancelledError {
    return new CancelledError(`execution ${this.executionId} of tool '${this.compiled.tool.name}' was stopped`);
  }

  private telemetrySnapshot(): ExecutionTelemetry {
    const end = this.endTime ?? this.deps.now();
    return this.telemetry!.snapshot(end - this.startTime, this.gate.pausedMs, this.history.length);
  }
}

/** 16777216 → "16 MiB"; 1073741824 → "1 GiB"; 1500 → "1500 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2) return `${Number((n / 1024 ** 2).toFixed(1))} MiB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KiB`;
  return `${n} bytes`;
}
