/**
 * The tasks extension's task (`io.modelcontextprotocol/tasks`, github.com/modelcontextprotocol/ext-tasks): the record
 * the stores keep and what `tasks/get` answers from it. Pure: no I/O.
 */

/** The extension's identifier, as clients and servers declare it under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export type ExtensionTaskStatus = 'working' | 'input_required' | 'completed' | 'cancelled' | 'failed';

/** A task as stored: the extension's Task fields, plus who may see it and the run's heartbeat. */
export interface ExtensionTaskRecord {
  taskId: string;
  /** The identity that created it: only that identity may read, update or cancel it. */
  owner: string;
  /** The tool called. */
  tool: string;
  status: ExtensionTaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** From creation; the task may be discarded after it. */
  ttlMs: number;
  pollIntervalMs: number;
  /** When the instance running it last said it still does (ISO). A `working` task whose heartbeat is old is dead. */
  heartbeatAt: string;
  /** The tool's result (`completed`). */
  result?: Record<string, unknown>;
  /** The JSON-RPC error (`failed`). */
  error?: { code: number; message: string; data?: unknown };
}

export function isTerminal(status: ExtensionTaskStatus): boolean {
  return status === 'completed' || status === 'cancelled' || status === 'failed';
}

/** The Task fields every answer about a task carries (CreateTaskResult, tasks/get). */
export function taskFields(r: ExtensionTaskRecord): Record<string, unknown> {
  return {
    taskId: r.taskId,
    status: r.status,
    ...(r.statusMessage !== undefined ? { statusMessage: r.statusMessage } : {}),
    createdAt: r.createdAt,
    lastUpdatedAt: r.lastUpdatedAt,
    ttlMs: r.ttlMs,
    pollIntervalMs: r.pollIntervalMs,
  };
}

/** `tasks/get`'s DetailedTask: the fields, plus the result (completed), the error (failed). */
export function detailedTask(r: ExtensionTaskRecord): Record<string, unknown> {
  return {
    ...taskFields(r),
    ...(r.status === 'completed' && r.result ? { result: r.result } : {}),
    ...(r.status === 'failed' && r.error ? { error: r.error } : {}),
  };
}

/** Whether the task outlived its TTL at `now` (ms). */
export function isExpired(r: ExtensionTaskRecord, now: number): boolean {
  return Date.parse(r.createdAt) + r.ttlMs <= now;
}

/** Whether a `working` task's runner stopped saying it runs (its instance died) by `now`, given the longest silence. */
export function isOrphaned(r: ExtensionTaskRecord, now: number, staleMs: number): boolean {
  return !isTerminal(r.status) && Date.parse(r.heartbeatAt) + staleMs <= now;
}
