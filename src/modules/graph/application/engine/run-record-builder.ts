import type { GraphRunRecord, RecordedRunError, RecordedRunStatus } from '../../domain/graph-run-record';
import type { ExecutionState } from './execution-types';

/** Node executions kept in one record by default: the last ones of a longer run (marked `truncated`). */
export const DEFAULT_MAX_RECORDED_EXECUTIONS = 10_000;

/** The record of a finished run, from its final state (called after the run ended, never on the engine's path). */
export function buildRunRecord(
  state: ExecutionState,
  input: unknown,
  source: { file?: string; graph?: string },
  maxExecutions = DEFAULT_MAX_RECORDED_EXECUTIONS,
): GraphRunRecord {
  const status: RecordedRunStatus = state.status === 'finished' ? 'completed' : state.status === 'stopped' ? 'stopped' : 'failed';
  const history = state.history;
  const executions = history.length > maxExecutions ? history.slice(history.length - maxExecutions) : [...history];
  const endTime = state.endTime ?? (history.length ? history[history.length - 1].endTime : state.startTime);
  let runError: RecordedRunError | undefined;
  if (state.error) {
    const failed = [...executions].reverse().find((e) => e.error);
    const tail = (failed?.error as { stderrTail?: unknown } | undefined)?.stderrTail;
    runError = {
      code: state.error.code,
      message: state.error.message,
      ...(failed ? { nodeId: failed.nodeId } : {}),
      ...(typeof tail === 'string' ? { stderrTail: tail } : {}),
    };
  }
  return {
    runId: state.executionId,
    tool: state.tool,
    status,
    startedAt: new Date(state.startTime).toISOString(),
    endedAt: new Date(endTime).toISOString(),
    durationMs: Math.max(0, endTime - state.startTime),
    nodeExecutions: history.length,
    ...(runError ? { error: runError.message } : {}),
    ...(source.file ? { file: source.file } : {}),
    ...(source.graph ? { graph: source.graph } : {}),
    input,
    ...(status === 'completed' ? { result: state.result } : {}),
    ...(runError ? { runError } : {}),
    executions,
    truncated: executions.length < history.length,
  };
}
