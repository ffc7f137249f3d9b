import { NotFoundError } from '../../../../kernel/errors';
import { contextBefore, type GraphRunRecord, type RecordedRunStatus } from '../../domain/graph-run-record';
import type { NodeExecutionRecord } from '../../domain/types';
import type { ExecutionStatus } from '../engine/execution-types';
import type { InspectedExecution } from '../ports/graph-execution-inspector';

/**
 * graph_inspect over a recorded run (the run store's record: a run of another process sharing the data dir or the
 * database, or one this process no longer keeps in memory), answered as the engine's state would be. A live record
 * (`running`/`paused`) holds the run's newest executions as of its last save (every ~250 ms); a final one up to the
 * last 10,000. Execution indexes are the run's own: a page from `offset` starts at that index, and an execution
 * before the recorded ones is not there.
 */

const STATUS: Record<RecordedRunStatus, ExecutionStatus> = {
  running: 'running',
  paused: 'paused',
  completed: 'finished',
  failed: 'error',
  stopped: 'stopped',
};

/** The recorded run as the engine's state of it (status in the engine's words: finished, error, …). */
export function inspectedFromRecord(record: GraphRunRecord): InspectedExecution {
  const live = record.status === 'running' || record.status === 'paused';
  return {
    executionId: record.runId,
    tool: record.tool,
    status: STATUS[record.status] ?? record.status,
    currentNodeId: record.currentNode ?? null,
    executionCount: record.nodeExecutions,
    startTime: Date.parse(record.startedAt),
    ...(live ? {} : { endTime: Date.parse(record.endedAt) }),
    history: record.executions,
    ...(record.status === 'completed' ? { result: record.result } : {}),
    ...(record.runError ? { error: { code: record.runError.code, message: record.runError.message } } : {}),
    ...(record.actor ? { actor: record.actor } : {}),
  };
}

/** The page of a recorded run's executions from execution index `offset`, at most `limit`. */
export function recordedPage(record: GraphRunRecord, offset: number, limit: number): NodeExecutionRecord[] {
  const first = record.executions.findIndex((e) => e.executionIndex >= offset);
  return first < 0 ? [] : record.executions.slice(first, first + limit);
}

/** One recorded execution and the context it saw. @throws NotFoundError when it is not in the record. */
export function recordedExecution(record: GraphRunRecord, executionIndex: number): { record: NodeExecutionRecord; context: Record<string, unknown> } {
  const found = record.executions.find((e) => e.executionIndex === executionIndex);
  if (!found) {
    throw new NotFoundError(
      'execution index',
      `${record.runId}#${executionIndex}`,
      `run '${record.runId}' has no recorded node execution ${executionIndex}${record.truncated ? ' (only its last executions were recorded)' : ''}`,
    );
  }
  return { record: found, context: contextBefore(record.executions, executionIndex) };
}
