import { ExecutionLimitError } from '../../../../kernel/errors';
import { jsonByteLength, LARGEST_SENDABLE_RESULT_BYTES, MAX_STRING_CHARS } from '../../../../kernel/json-size';
import type { GraphConfig } from '../../domain/types';

/**
 * The limits a run is held to and the errors that end it: the graph's own (`executionLimits`: node executions, run
 * time without pauses, checked before each node) and the server's (`--graph-run-history-mb`, `--graph-result-mb`),
 * which guard its memory and its answers, not the graph's logic.
 */

/** The graph's limit a run passed before running `nodeId`, or undefined. */
export function limitBeforeNode(
  tool: string,
  limits: GraphConfig['executionLimits'],
  nodeId: string,
  executions: number,
  runningMs: number,
): ExecutionLimitError | undefined {
  if (executions >= limits.maxNodeExecutions) {
    return new ExecutionLimitError(
      'maxNodeExecutions',
      limits.maxNodeExecutions,
      `tool '${tool}': execution limit maxNodeExecutions (${limits.maxNodeExecutions}) exceeded before node '${nodeId}' (raise executionLimits.maxNodeExecutions in the graph file)`,
    );
  }
  if (runningMs > limits.maxExecutionTimeMs) {
    return new ExecutionLimitError(
      'maxExecutionTimeMs',
      limits.maxExecutionTimeMs,
      `tool '${tool}': execution limit maxExecutionTimeMs (${limits.maxExecutionTimeMs} ms) exceeded before node '${nodeId}' (raise executionLimits.maxExecutionTimeMs in the graph file)`,
    );
  }
  return undefined;
}

/** A run whose history passed the per-run cap (`cap` bytes) ends here, after `nodeId` (execution `executions`). */
export function historyLimitError(tool: string, cap: number, nodeId: string, executions: number): ExecutionLimitError {
  return new ExecutionLimitError(
    'maxHistoryBytes',
    cap,
    `tool '${tool}': execution limit maxHistoryBytes (${formatBytes(cap)}) exceeded after node '${nodeId}' (execution ${executions}): the run's history holds too much (raise --graph-run-history-mb)`,
  );
}

/**
 * A result is answered as JSON text (twice: the text block and structuredContent), so one over the cap — or too large
 * for one answer at all (past V8's longest string) — is an execution_limit error instead of an answer that never
 * comes. Measured without building the text, stopping just past the limit: a result far over it costs no memory.
 * @returns the result when it fits.
 */
export function checkResultSize(tool: string, cap: number, result: unknown): unknown {
  const limit = Math.min(cap, LARGEST_SENDABLE_RESULT_BYTES);
  const size = jsonByteLength(result, limit);
  if (size <= limit) return result;
  const why =
    cap <= LARGEST_SENDABLE_RESULT_BYTES
      ? `the result is over ${formatBytes(cap)} as JSON (raise --graph-result-mb)`
      : `the result is over ${formatBytes(LARGEST_SENDABLE_RESULT_BYTES)} as JSON, more than one answer can carry (an answer holds it twice and V8's longest string is ${formatBytes(MAX_STRING_CHARS)})`;
  throw new ExecutionLimitError('maxResultBytes', cap, `tool '${tool}': execution limit maxResultBytes (${formatBytes(cap)}) exceeded: ${why}`);
}

/** 16777216 → "16 MiB"; 1073741824 → "1 GiB"; 1500 → "1500 bytes". */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2) return `${Number((n / 1024 ** 2).toFixed(1))} MiB`;
  if (n >= 1024) return `${Number((n / 1024).toFixed(1))} KiB`;
  return `${n} bytes`;
}
