import type { TaskStatus } from './task-status';

/** Defaults of a node definition (DESIGN.md §2). */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;

/** A node as the agent defines it in `init_project_graph`. */
export interface TaskNodeDefinition {
  id: string;
  title: string;
  description?: string;
  depends_on?: string[];
  /** Run through the shell in the project root; exit 0 completes the task. Absent: the task completes unchecked. */
  validation_command?: string;
  /** Default {@link DEFAULT_MAX_ATTEMPTS}. */
  max_attempts?: number;
  /** Default {@link DEFAULT_TIMEOUT_MS}. */
  timeout_ms?: number;
}

/** One failed validation attempt, kept on the node (resets keep them too). */
export interface TaskErrorLog {
  /** 1-based attempt number. */
  attempt: number;
  /** ISO time the attempt ended. */
  time: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  timed_out: boolean;
  /** Tail of the captured stdout (a few KiB at most, so the graph file stays small). */
  stdout_tail: string;
  /** Tail of the captured stderr. */
  stderr_tail: string;
}

/** A node as stored: its definition (defaults applied) plus its state. */
export interface TaskNode {
  id: string;
  title: string;
  description?: string;
  depends_on: string[];
  validation_command?: string;
  max_attempts: number;
  timeout_ms: number;
  status: TaskStatus;
  /** Validation attempts that ran to an end (passed or failed). Cancelled or interrupted runs do not count. */
  current_attempt: number;
  error_logs: TaskErrorLog[];
  /** ISO time the node entered VALIDATING; set only while VALIDATING. */
  validating_since?: string;
  /** Id of the latest validation run (set on entering VALIDATING, kept afterwards so its result can be found again). */
  validation_run_id?: string;
  /** ISO time of the last status change. */
  updated_at: string;
}

/** One project's task DAG, as stored in `<data-dir>/projects/<id>/task_graph.json`. */
export interface TaskGraph {
  /** Format version of the file. */
  schema_version: 1;
  project_id: string;
  project_name: string;
  /** Real path of the project folder; validation commands run there. */
  project_root: string;
  created_at: string;
  updated_at: string;
  /** Grows by one on every write; lets readers notice a change. */
  revision: number;
  nodes: TaskNode[];
}

/** One status change, as appended to the transition log (`transitions.ndjson`). */
export interface TaskTransition {
  node: string;
  from: TaskStatus;
  to: TaskStatus;
  /** ISO time. */
  time: string;
  /** The node's attempt number the change concerns (the running/finished attempt; 0 before any). */
  attempt: number;
}

/** Finds a node or returns undefined. */
export function findNode(graph: TaskGraph, nodeId: string): TaskNode | undefined {
  return graph.nodes.find((n) => n.id === nodeId);
}
