/**
 * The lifecycle of one task node (docs/tasks.md; contracts in spec/mcp-api.md):
 *
 * PENDING → READY (all `depends_on` COMPLETED) → IN_PROGRESS (`start_task`) → VALIDATING (`validate_task_loop`)
 * → COMPLETED (exit 0) | RETRYING (failed, attempts left) | FAILED (`max_attempts` reached); RETRYING → IN_PROGRESS
 * (`start_task`) or straight on to the next attempt (`validate_task_loop`: RETRYING → IN_PROGRESS → VALIDATING). `reset_task_node` sends FAILED, RETRYING, IN_PROGRESS or COMPLETED back to READY or PENDING.
 */
export const TaskStatus = {
  Pending: 'PENDING',
  Ready: 'READY',
  InProgress: 'IN_PROGRESS',
  Validating: 'VALIDATING',
  Retrying: 'RETRYING',
  Completed: 'COMPLETED',
  Failed: 'FAILED',
} as const;

export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** Every status, in lifecycle order (used for counts and docs). */
export const ALL_TASK_STATUSES: readonly TaskStatus[] = [
  TaskStatus.Pending,
  TaskStatus.Ready,
  TaskStatus.InProgress,
  TaskStatus.Validating,
  TaskStatus.Retrying,
  TaskStatus.Completed,
  TaskStatus.Failed,
];

/** The tool calls an agent makes on one node. */
export type TaskCall = 'start_task' | 'validate_task_loop' | 'reset_task_node';

/**
 * Which calls an agent may make on a node in each status — what a refusal lists as "allowed".
 * VALIDATING allows `validate_task_loop` because calling it again waits for the run in progress.
 */
export const ALLOWED_CALLS: Readonly<Record<TaskStatus, readonly TaskCall[]>> = {
  PENDING: [],
  READY: ['start_task'],
  IN_PROGRESS: ['validate_task_loop', 'reset_task_node'],
  VALIDATING: ['validate_task_loop'],
  RETRYING: ['validate_task_loop', 'start_task', 'reset_task_node'],
  COMPLETED: ['reset_task_node'],
  FAILED: ['reset_task_node'],
};

/** Statuses that `get_ready_tasks` lists: both accept `start_task`. */
export function isStartable(status: TaskStatus): boolean {
  return status === TaskStatus.Ready || status === TaskStatus.Retrying;
}

/** True for statuses a node reaches only after it was started (a dependent in one of them blocks a reset). */
export function isPastReady(status: TaskStatus): boolean {
  return status !== TaskStatus.Pending && status !== TaskStatus.Ready;
}
