import type { Actor } from '../../../kernel/identity';
import type { TaskStatus } from './task-status';

/** Defaults of a node definition (docs/tasks.md). */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** 10 minutes. */
export const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
/** The format of `task_graph.json` this code writes (1: before run leases, bounded attempt records and last_run). */
export const TASK_GRAPH_FORMAT = 2;

/** A task's priority: `get_ready_tasks` and `claim_next_task` take high before medium before low. */
export const TASK_PRIORITIES = ['high', 'medium', 'low'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const DEFAULT_PRIORITY: TaskPriority = 'medium';

/** A metadata value: external ids (an issue URL, a ticket key), so plain scalars only. */
export type TaskMetadataValue = string | number | boolean;

/**
 * Who acts on a task: the caller's identity (its name, null without one), the agent name it gave (null without one)
 * and the host of the server that took the call. Two calls are the same claimant when all three are equal.
 */
export interface Claimant {
  identity: string | null;
  agent: string | null;
  host: string;
  /**
   * The `clientInfo.name` the caller's MCP client gave, when known: kept in the history and on transitions beside the
   * identity, but no part of who the claimant is (claims do not keep it).
   */
  client?: string;
}

/** The claim on a started task: its claimant, since when, and when it lapses unless renewed by the claimant's calls. */
export interface TaskClaim extends Claimant {
  /** ISO time the claim was taken. */
  since: string;
  /** ISO time the claim lapses (each call of the claimant on the task moves it on by the claim TTL). */
  expires_at: string;
}

/** One change of the plan, as the project's history keeps it (newest last). */
export interface PlanChange {
  /** The graph revision the change wrote. */
  revision: number;
  /** ISO time. */
  time: string;
  actor: Claimant;
  /** The tool (or `claim_lapsed` for a lapse the server applied). */
  action: string;
  /** One line saying what changed (the agent's own reason when it gave one). */
  reason: string;
  /** The tasks the change concerns. */
  nodes: string[];
}

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
  /** Bytes of each output stream's tail a validation answer carries; default: the server's `--output-tail` (8 KiB). */
  output_tail_bytes?: number;
  /** Default {@link DEFAULT_PRIORITY}. */
  priority?: TaskPriority;
  tags?: string[];
  /** Bounded: see {@link checkMetadata}. */
  metadata?: Record<string, TaskMetadataValue>;
}

/**
 * One failed validation attempt, kept on the node (resets keep them too) — the latest {@link MAX_ATTEMPT_RECORDS}
 * only; every record is also in the transition log line of its failure.
 */
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

/**
 * The result of a node's latest finished validation run, kept on the node so it is never lost: a run that ended after
 * a `running: true` answer is handed to the next `validate_task_loop` caller (marked with its attempt number), and
 * `get_project_graph` shows it.
 */
export interface TaskRunResult {
  run_id: string;
  /** The attempt number the run used. */
  attempt: number;
  passed: boolean;
  /** ISO time the run ended. */
  finished_at: string;
  /** False when the node had no validation_command (it completed without running anything). */
  command_ran: boolean;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  timed_out: boolean;
  /** Output tails, at most the node's output tail bytes each. */
  stdout_tail: string;
  stderr_tail: string;
  /** True when a stream was longer than what was kept. */
  truncated: boolean;
  /** True once a `validate_task_loop` caller received this result; until then the next call is given it. */
  delivered: boolean;
}

/**
 * Who runs a node's validation command: recorded on the node when it enters VALIDATING and renewed while the command
 * runs. Any server (on any host, for a shared store) can tell from it alone whether the run can still end on its own
 * or is orphaned and the node recoverable at once (the rule: `runOwnership` in run-lease.ts).
 */
export interface RunLease {
  /** Host name of the owning server process. */
  host: string;
  /** Boot id of that host (Linux `/proc/sys/kernel/random/boot_id`), null where the platform has none. */
  boot_id: string | null;
  pid: number;
  /**
   * The run's id; also in the command's environment as `WORKGRAPH_COMMAND_ID`, inherited by every process it starts,
   * so the next server on the same host can find and kill what a dead owner left running.
   */
  run_id: string;
  /** Process group of the command's shell (it leads its own group), recorded once the command started. */
  pgid?: number;
  /** ISO time the lease lapses unless renewed. */
  expires_at: string;
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
  /** Who runs the command while VALIDATING: a lease renewed while it runs (see run-lease.ts). */
  owner?: RunLease;
  /** Per-node output tail size for answers (see {@link TaskNodeDefinition.output_tail_bytes}). */
  output_tail_bytes?: number;
  /** The latest finished run's result. */
  last_run?: TaskRunResult;
  priority?: TaskPriority;
  tags?: string[];
  metadata?: Record<string, TaskMetadataValue>;
  /** Who started the task and holds it (IN_PROGRESS, VALIDATING, RETRYING); see claims.ts. */
  claim?: TaskClaim;
  /** On the first task of a split: the id of the task it replaced (whose history it carries on). */
  split_from?: string;
  /** ISO time of the last status change. */
  updated_at: string;
}

/** One project's task DAG, as stored in `<data-dir>/projects/<id>/task_graph.json`. */
export interface TaskGraph {
  /** Format version of the file ({@link TASK_GRAPH_FORMAT}; version 1 files are upgraded when read). */
  schema_version: number;
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
  /** On a failed attempt: its record, so the log keeps every attempt after the node keeps only the latest ones. */
  record?: TaskErrorLog;
  /**
   * Who made the change: the caller's identity name and its MCP client's `clientInfo.name` (a verdict: whoever asked
   * for the validation run; a lapsed claim: the call that put it back). Absent in logs written before actors were kept.
   */
  actor?: Actor;
}

/** Finds a node or returns undefined. */
export function findNode(graph: TaskGraph, nodeId: string): TaskNode | undefined {
  return graph.nodes.find((n) => n.id === nodeId);
}
