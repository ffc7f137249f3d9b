import type { WorkgraphError } from '../../../../kernel/errors';
import type { Actor } from '../../../../kernel/identity';
import type { GraphNode, NodeExecutionError, NodeExecutionRecord } from '../../domain/types';

/** Where a run is. `error` and `stopped` are final like `finished`. */
export type ExecutionStatus = 'not_started' | 'running' | 'paused' | 'finished' | 'error' | 'stopped';

/**
 * Callbacks around each node of one run. Each may be async; the run waits for it. The `context` handed out is the
 * live context object: read it during the call, copy what you keep.
 */
/**
 * Debugger hooks, with mcpgraph's argument order (a hook written for mcpgraph's executor works here). Every hook is
 * awaited before the run goes on. `executionIndex` is the index the node's record gets in the history; `context` is
 * the data context the node's expressions see (`$.nodeId` = that node's latest output) — live in onNodeStart/onPause
 * (read it, do not keep it), a copy taken before the node ran in onNodeComplete/onNodeError.
 */
export interface ExecutionHooks {
  /**
   * Before a node runs — after a breakpoint, pause() or step() on it has been released (the run pauses first, then
   * this fires). Returning `false` pauses the run before the node (a programmatic breakpoint).
   */
  onNodeStart?(
    executionIndex: number,
    nodeId: string,
    node: GraphNode,
    context: Readonly<Record<string, unknown>>,
  ): boolean | void | Promise<boolean | void>;
  /** After a node ran successfully: `input` is the context the node saw, `output` what it produced. */
  onNodeComplete?(
    executionIndex: number,
    nodeId: string,
    node: GraphNode,
    input: Readonly<Record<string, unknown>>,
    output: unknown,
    durationMs: number,
  ): void | Promise<void>;
  /** After a node failed (the run then ends with that error); `context` is the context the node saw. */
  onNodeError?(
    executionIndex: number,
    nodeId: string,
    node: GraphNode,
    error: WorkgraphError,
    context: Readonly<Record<string, unknown>>,
  ): void | Promise<void>;
  /**
   * The run paused before node `nodeId` (breakpoint, pause(), step, startPaused, onNodeStart returned false), with the
   * context the node will see.
   */
  onPause?(executionIndex: number, nodeId: string, context: Readonly<Record<string, unknown>>): void | Promise<void>;
  /** The run goes on after a pause (resume() or step()). */
  onResume?(): void | Promise<void>;
}

export interface ExecutionOptions {
  hooks?: ExecutionHooks;
  /** Node ids to pause before. */
  breakpoints?: string[];
  /** Pause before the entry node. */
  startPaused?: boolean;
  /** Collect per-node-type and per-node-id timings and counts; returned in the result and the state. */
  telemetry?: boolean;
  /** Aborting it stops the run (like controller.stop()). */
  signal?: AbortSignal;
  /** Who runs it (the caller's identity and client): kept on the run and its record; only they (or admin) inspect it. */
  actor?: Actor;
}

/** Count and time of the executions of one node type or node id. */
export interface NodeTelemetry {
  count: number;
  totalMs: number;
  errors: number;
}

export interface ExecutionTelemetry {
  /** Wall time from start to end, pauses included. */
  totalDurationMs: number;
  /** Time spent paused. */
  pausedMs: number;
  nodeExecutions: number;
  errorCount: number;
  byNodeType: Record<string, NodeTelemetry>;
  byNodeId: Record<string, NodeTelemetry>;
}

/** A snapshot of one run (the history array is a live read-only view). */
export interface ExecutionState {
  executionId: string;
  tool: string;
  status: ExecutionStatus;
  /** The node running or paused before; null before the start and after the end. */
  currentNodeId: string | null;
  /** Number of node executions so far (= the next executionIndex). */
  executionCount: number;
  startTime: number;
  endTime?: number;
  breakpoints: string[];
  history: readonly NodeExecutionRecord[];
  /** Copy of the current expression context: `{[nodeId]: latest output}`. */
  context: Record<string, unknown>;
  /** The tool result, once finished. */
  result?: unknown;
  error?: NodeExecutionError;
  telemetry?: ExecutionTelemetry;
  /** Who ran it, when known. */
  actor?: Actor;
}

export interface ExecutionResult {
  executionId: string;
  /** The tool's result (wrapped as `{result}` when the tool's output schema is not an object schema). */
  result: unknown;
  history: readonly NodeExecutionRecord[];
  telemetry?: ExecutionTelemetry;
}

/** Drives and inspects one run. Every run has its own; several runs may go on at once. */
export interface ExecutionController {
  readonly executionId: string;
  /** Pause before the next node. No effect unless running. */
  pause(): void;
  /** Go on after a pause. No effect unless paused. */
  resume(): void;
  /**
   * Run exactly one node, then pause again. Resolves once that node ran (or the run ended).
   * @throws InvalidTransitionError (rejected promise) unless paused.
   */
  step(): Promise<void>;
  /** End the run at the next node boundary (an in-flight MCP call is aborted); the run rejects with CancelledError. */
  stop(): void;
  getState(): ExecutionState;
  setBreakpoints(nodeIds: string[]): void;
  clearBreakpoints(): void;
  getBreakpoints(): string[];
  /** The context node `executionIndex` saw when it started (time travel); undefined for an index not reached. */
  getContextForExecution(executionIndex: number): Record<string, unknown> | undefined;
  getExecutionByIndex(executionIndex: number): NodeExecutionRecord | undefined;
}

/** What executeTool hands back: the run's id, its outcome and its controller. */
export interface ExecutionHandle {
  executionId: string;
  promise: Promise<ExecutionResult>;
  controller: ExecutionController;
}
