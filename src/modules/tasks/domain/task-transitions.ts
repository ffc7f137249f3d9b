import { ConflictError, HasDependentsError, InvalidTransitionError, NotFoundError } from '../../../kernel/errors';
import { ATTEMPT_RECORD_TAIL_BYTES, MAX_ATTEMPT_RECORDS, utf8Tail } from './output-tail';
import { NO_HOST_FACTS, runOwnership, type HostFacts } from './run-lease';
import type { Actor } from '../../../kernel/identity';
import type { RunLease, TaskErrorLog, TaskGraph, TaskNode, TaskRunResult, TaskTransition } from './task-graph';
import { ALLOWED_CALLS, isPastReady, TaskStatus, type TaskCall } from './task-status';
import { GraphDraft, type TransitionTime } from './task-graph-draft';

export type { TransitionTime } from './task-graph-draft';

/** How a validation run ended, as the runner saw it (tails already cut to the node's output tail size). */
export type RunOutcome = Omit<TaskRunResult, 'run_id' | 'attempt' | 'passed' | 'delivered'>;

/**
 * What can happen to a node. `start`, `begin_validation` and `reset` are agent calls (start_task,
 * validate_task_loop, reset_task_node); the others record the end of a validation run and name that run, so a
 * late result can never land on a node that moved on.
 */
export type TaskEvent =
  | { type: 'start' }
  /**
   * From IN_PROGRESS, or RETRYING (the next attempt starts at once), or a VALIDATING node whose run is orphaned
   * (see {@link runOwnership}; recovered first). `facts` default to {@link NO_HOST_FACTS}.
   */
  | { type: 'begin_validation'; runId: string; lease: RunLease; facts?: HostFacts }
  | { type: 'pass'; runId: string; run: RunOutcome }
  | { type: 'fail'; runId: string; run: RunOutcome }
  | { type: 'cancel'; runId: string }
  | { type: 'recover_interrupted'; facts?: HostFacts }
  | { type: 'reset'; facts?: HostFacts }
  /** The owner renews its lease while the command runs (no status change); `pgid` once the command started. */
  | { type: 'renew_lease'; runId: string; expiresAt: string; pgid?: number }
  /** A caller received the latest run's result (no status change). */
  | { type: 'mark_delivered'; runId: string };

export interface TransitionResult {
  /** The new graph (the input graph is never modified). */
  graph: TaskGraph;
  /** The node after the event. */
  node: TaskNode;
  /** Every status change made, the node's first, for the transition log. */
  transitions: TaskTransition[];
  /** Dependents that became READY (on `pass`). */
  unlocked: string[];
  /** READY dependents sent back to PENDING (on `reset` of a COMPLETED node). */
  reverted: string[];
}

const CALL_OF: Partial<Record<TaskEvent['type'], TaskCall>> = {
  start: 'start_task',
  begin_validation: 'validate_task_loop',
  reset: 'reset_task_node',
};

/**
 * The task state machine: applies `event` to node `nodeId` of `graph`. Pure: returns a new graph and the list of
 * status changes; throws when the event is not allowed.
 * @throws NotFoundError for an unknown node; InvalidTransitionError (current status, allowed calls) for a refused
 *   agent call; ConflictError when a run's result arrives for a node that is no longer in that run, or on a reset of
 *   a node whose command is running; HasDependentsError when resetting a COMPLETED node whose dependents are past
 *   READY.
 */
export function applyTaskEvent(graph: TaskGraph, nodeId: string, event: TaskEvent, at: TransitionTime): TransitionResult {
  const node = graph.nodes.find((n) => n.id === nodeId);
  if (!node) throw new NotFoundError('task', nodeId, `task '${nodeId}' not found in project '${graph.project_id}'`);
  const draft = new GraphDraft(graph, at);
  switch (event.type) {
    case 'start':
      requireStatus(graph, node, event, [TaskStatus.Ready, TaskStatus.Retrying]);
      draft.set(node.id, TaskStatus.InProgress, {}, node.current_attempt + 1);
      break;
    case 'begin_validation': {
      if (node.status === TaskStatus.Validating) {
        recoverOrphan(node, draft, at, event.facts ?? NO_HOST_FACTS);
      } else {
        requireStatus(graph, node, event, [TaskStatus.InProgress, TaskStatus.Retrying]);
        if (node.status === TaskStatus.Retrying) draft.set(node.id, TaskStatus.InProgress, {}, node.current_attempt + 1);
      }
      draft.set(
        node.id,
        TaskStatus.Validating,
        { validating_since: at.iso, validation_run_id: event.runId, owner: event.lease },
        node.current_attempt + 1,
      );
      break;
    }
    case 'pass': {
      requireRun(node, event.runId);
      const attempt = node.current_attempt + 1;
      draft.set(
        node.id,
        TaskStatus.Completed,
        { current_attempt: attempt, ...ENDED, claim: undefined, last_run: runResult(event.runId, attempt, true, event.run) },
        attempt,
      );
      for (const dep of graph.nodes) {
        if (dep.status === TaskStatus.Pending && dep.depends_on.includes(node.id) && draft.allDepsCompleted(dep)) {
          draft.set(dep.id, TaskStatus.Ready, {}, dep.current_attempt);
          draft.unlocked.push(dep.id);
        }
      }
      break;
    }
    case 'fail': {
      requireRun(node, event.runId);
      const attempt = node.current_attempt + 1;
      const to = attempt >= node.max_attempts ? TaskStatus.Failed : TaskStatus.Retrying;
      const record = attemptRecord(attempt, event.run);
      draft.set(
        node.id,
        to,
        {
          current_attempt: attempt,
          ...ENDED,
          ...(to === TaskStatus.Failed ? { claim: undefined } : {}),
          error_logs: [...node.error_logs, record].slice(-MAX_ATTEMPT_RECORDS),
          last_run: runResult(event.runId, attempt, false, event.run),
        },
        attempt,
        record,
      );
      break;
    }
    case 'cancel':
      requireRun(node, event.runId);
      draft.set(node.id, TaskStatus.InProgress, ENDED, node.current_attempt + 1);
      break;
    case 'recover_interrupted':
      recoverOrphan(node, draft, at, event.facts ?? NO_HOST_FACTS);
      break;
    case 'reset':
      reset(graph, node, draft, at, event.facts ?? NO_HOST_FACTS);
      break;
    case 'renew_lease':
      requireRun(node, event.runId);
      if (node.owner) draft.patch(node.id, { owner: { ...node.owner, expires_at: event.expiresAt, ...(event.pgid !== undefined ? { pgid: event.pgid } : {}) } });
      break;
    case 'mark_delivered':
      if (node.last_run?.run_id === event.runId && !node.last_run.delivered) {
        draft.patch(node.id, { last_run: { ...node.last_run, delivered: true } });
      }
      break;
  }
  const next = draft.build();
  return {
    graph: next,
    node: next.nodes.find((n) => n.id === nodeId)!,
    transitions: draft.transitions,
    unlocked: draft.unlocked,
    reverted: draft.reverted,
  };
}

/** The log's first line for each task of a new graph: its initial status, at the graph's creation, by `actor`. */
export function creationTransitions(graph: TaskGraph, actor?: Actor): TaskTransition[] {
  return graph.nodes.map((n) => withActor({ node: n.id, from: n.status, to: n.status, time: graph.created_at, attempt: 0 }, actor));
}

/** `transitions` with `actor` on each that has none yet (the same array when there is no actor). */
export function stampActor(transitions: readonly TaskTransition[], actor: Actor | undefined): TaskTransition[] {
  return actor ? transitions.map((t) => (t.actor ? t : withActor(t, actor))) : [...transitions];
}

function withActor(t: TaskTransition, actor: Actor | undefined): TaskTransition {
  return actor ? { ...t, actor } : t;
}

/** The entity name used in refusals; a PENDING node also says what it waits for. */
export function describeNode(graph: TaskGraph, node: TaskNode): string {
  if (node.status !== TaskStatus.Pending) return `task '${node.id}'`;
  const waiting = node.depends_on.filter((d) => graph.nodes.find((n) => n.id === d)?.status !== TaskStatus.Completed);
  return `task '${node.id}' (waiting for ${waiting.join(', ')} to be COMPLETED)`;
}

function requireStatus(graph: TaskGraph, node: TaskNode, event: TaskEvent, from: readonly string[]): void {
  if (from.includes(node.status)) return;
  throw new InvalidTransitionError(describeNode(graph, node), node.status, CALL_OF[event.type]!, ALLOWED_CALLS[node.status]);
}

/** What leaving VALIDATING clears. */
const ENDED: Partial<TaskNode> = { validating_since: undefined, owner: undefined };

/** VALIDATING → IN_PROGRESS (no attempt used: nobody knows the verdict) when its run is orphaned, else a conflict. */
function recoverOrphan(node: TaskNode, draft: GraphDraft, at: TransitionTime, facts: HostFacts): void {
  const own = runOwnership(node, at.ms, facts);
  if (!own.recoverable) {
    throw new ConflictError(
      node.status === TaskStatus.Validating
        ? `task '${node.id}' is VALIDATING since ${node.validating_since}: ${own.reason}; call validate_task_loop again to wait for it`
        : `${own.reason}; only a VALIDATING node whose run is orphaned can be recovered`,
      { node: node.id, status: node.status },
    );
  }
  draft.set(node.id, TaskStatus.InProgress, ENDED, node.current_attempt + 1);
}

function attemptRecord(attempt: number, run: RunOutcome): TaskErrorLog {
  return {
    attempt,
    time: run.finished_at,
    exit_code: run.exit_code,
    signal: run.signal,
    duration_ms: run.duration_ms,
    timed_out: run.timed_out,
    stdout_tail: utf8Tail(run.stdout_tail, ATTEMPT_RECORD_TAIL_BYTES).text,
    stderr_tail: utf8Tail(run.stderr_tail, ATTEMPT_RECORD_TAIL_BYTES).text,
  };
}

function runResult(runId: string, attempt: number, passed: boolean, run: RunOutcome): TaskRunResult {
  return { run_id: runId, attempt, passed, ...run, delivered: false };
}

function requireRun(node: TaskNode, runId: string): void {
  if (node.status !== TaskStatus.Validating || node.validation_run_id !== runId) {
    throw new ConflictError(
      `task '${node.id}' is no longer in validation run ${runId} (it is ${node.status}); the run's result was not recorded`,
      { node: node.id, status: node.status, runId },
    );
  }
}

function reset(graph: TaskGraph, node: TaskNode, draft: GraphDraft, at: TransitionTime, facts: HostFacts): void {
  if (node.status === TaskStatus.Validating) {
    const own = runOwnership(node, at.ms, facts);
    if (!own.recoverable) {
      throw new ConflictError(
        `task '${node.id}' is VALIDATING since ${node.validating_since}: ${own.reason}; wait for validate_task_loop ` +
          'to return (or cancel it), then reset',
        { node: node.id, status: node.status },
      );
    }
  }
  if (node.status !== TaskStatus.Validating) {
    requireStatus(graph, node, { type: 'reset' }, [
      TaskStatus.Failed,
      TaskStatus.Retrying,
      TaskStatus.InProgress,
      TaskStatus.Completed,
    ]);
  }
  const dependents = graph.nodes.filter((n) => n.depends_on.includes(node.id));
  if (node.status === TaskStatus.Completed) {
    const blocking = dependents.filter((d) => isPastReady(d.status));
    if (blocking.length) {
      throw new HasDependentsError(
        `task '${node.id}' cannot be reset: dependent task(s) ${blocking.map((d) => `${d.id} (${d.status})`).join(', ')} ` +
          'are past READY; reset them first',
        blocking.map((d) => d.id),
      );
    }
    for (const d of dependents) {
      if (d.status === TaskStatus.Ready) {
        draft.set(d.id, TaskStatus.Pending, {}, d.current_attempt);
        draft.reverted.push(d.id);
      }
    }
  }
  const to = draft.allDepsCompleted(node) ? TaskStatus.Ready : TaskStatus.Pending;
  draft.set(node.id, to, { current_attempt: 0, ...ENDED, claim: undefined }, 0);
}
