import type { Actor } from '../../../../kernel/identity';
import type { NodeExecutionError } from '../../domain/types';
import type { ExecutionState, ExecutionStatus } from '../engine/execution-types';

/** Node executions a debug view carries (the newest): what the paused node's history functions read last. */
export const DEBUG_VIEW_HISTORY = 50;

/** One node execution as the debugger lists it. */
export interface DebugExecution {
  executionIndex: number;
  nodeId: string;
  nodeType: string;
  duration: number;
  output?: unknown;
  error?: NodeExecutionError;
}

/**
 * A debug run as the dashboard shows it. While paused, `context` is what the node the run holds before reads as `$`
 * (each node's latest output) and `history` the newest executions its `$previousNode()` / `$executionCount()` read.
 */
export interface DebugRunView {
  runId: string;
  tool: string;
  status: ExecutionStatus;
  /** The node running or paused before; null before the start and after the end. */
  currentNode: string | null;
  executionCount: number;
  breakpoints: string[];
  /** Milliseconds since the epoch. */
  startTime: number;
  endTime?: number;
  context: Record<string, unknown>;
  history: DebugExecution[];
  historyTotal: number;
  result?: unknown;
  error?: NodeExecutionError;
  actor: Actor;
  /** While paused: when the idle timeout stops the run unless it is driven before (milliseconds since the epoch). */
  idleStopAt?: number;
}

/** A run's state as the debugger shows it (the newest {@link DEBUG_VIEW_HISTORY} executions). */
export function viewOf(s: ExecutionState, actor: Actor, idleStopAt: number | undefined): DebugRunView {
  const from = Math.max(0, s.history.length - DEBUG_VIEW_HISTORY);
  return {
    runId: s.executionId,
    tool: s.tool,
    status: s.status,
    currentNode: s.currentNodeId,
    executionCount: s.executionCount,
    breakpoints: s.breakpoints,
    startTime: s.startTime,
    ...(s.endTime !== undefined ? { endTime: s.endTime } : {}),
    context: s.context,
    history: s.history.slice(from).map((r) => ({
      executionIndex: r.executionIndex,
      nodeId: r.nodeId,
      nodeType: r.nodeType,
      duration: r.duration,
      ...(r.error ? { error: r.error } : { output: r.output }),
    })),
    historyTotal: s.history.length,
    ...(s.result !== undefined ? { result: s.result } : {}),
    ...(s.error ? { error: s.error } : {}),
    actor,
    ...(idleStopAt !== undefined && s.status === 'paused' ? { idleStopAt } : {}),
  };
}
