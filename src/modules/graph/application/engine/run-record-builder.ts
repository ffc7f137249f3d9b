import type { GraphRunRecord, RecordedRunError, RecordedRunStatus } from '../../domain/graph-run-record';
import type { GraphToolDefinition } from '../../domain/graph-tool-definition';
import type { ExecutionState } from './execution-types';
import type { NodeExecutionRecord } from '../../domain/types';
import { jsonByteLength } from '../../../../kernel/json-size';

/** Node executions kept in one record by default: the last ones of a longer run (marked `truncated`). */
export const DEFAULT_MAX_RECORDED_EXECUTIONS = 10_000;

/**
 * The record of a run from its state: a finished run's final record, or the live record of a run still going
 * (status `running`/`paused`, its current node). Called off the engine's path (after the run ended, or by the live
 * recorder on a timer).
 */
export function buildRunRecord(
  state: ExecutionState,
  input: unknown,
  source: { file?: string; graph?: string; draft?: { definition?: GraphToolDefinition; omitted?: string } },
  maxExecutions = DEFAULT_MAX_RECORDED_EXECUTIONS,
): GraphRunRecord {
  const live = state.status === 'running' || state.status === 'paused' || state.status === 'not_started';
  const status: RecordedRunStatus = live
    ? state.status === 'paused' ? 'paused' : 'running'
    : state.status === 'finished' ? 'completed' : state.status === 'stopped' ? 'stopped' : 'failed';
  const history = state.history;
  const executions = withinOutputBudget(history.length > maxExecutions ? history.slice(history.length - maxExecutions) : [...history]);
  const endTime = state.endTime ?? (history.length ? history[history.length - 1].endTime : state.startTime);
  const currentNode = live && state.currentNodeId ? state.currentNodeId : undefined;
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
    ...(state.actor ? { actor: state.actor } : {}),
    ...(currentNode !== undefined ? { currentNode } : {}),
    ...(source.draft ? { draft: true as const } : {}),
    ...(source.file ? { file: source.file } : {}),
    ...(source.graph ? { graph: source.graph } : {}),
    input,
    ...(status === 'completed' ? { result: state.result } : {}),
    ...(runError ? { runError } : {}),
    executions,
    truncated: executions.length < history.length,
    ...(source.draft?.definition ? { definition: source.draft.definition } : {}),
    ...(source.draft?.omitted ? { draftOmitted: source.draft.omitted } : {}),
  };
}

/**
 * Outputs a record keeps, newest first, within this many bytes of JSON together: a record is written as one JSON text,
 * and a run whose outputs are huge (one past V8's longest string included) must not make the recorder build hundreds
 * of MiB — or fail — after the run. Older outputs past the budget are replaced by a note saying how large they were.
 */
export const RECORDED_OUTPUTS_MAX_BYTES = 32 * 1024 * 1024;

function withinOutputBudget(executions: NodeExecutionRecord[]): NodeExecutionRecord[] {
  let left = RECORDED_OUTPUTS_MAX_BYTES;
  for (let i = executions.length - 1; i >= 0; i--) {
    const e = executions[i]!;
    let size: number;
    try {
      size = jsonByteLength(e.output, left);
    } catch {
      // A cyclic output (kept as it is in the history) has no JSON at all.
      executions[i] = { ...e, output: { outputNotRecorded: 'not JSON (cyclic)' } };
      continue;
    }
    if (size <= left) {
      left -= size;
      continue;
    }
    left = 0;
    executions[i] = { ...e, output: { outputNotRecorded: `over ${Math.round(RECORDED_OUTPUTS_MAX_BYTES / 1024 ** 2)} MiB of outputs in this record` } };
  }
  return executions;
}
