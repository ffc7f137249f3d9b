import { CycleDetectedError, HasDependentsError, HasProgressError, InvalidArgumentsError } from '../../../kernel/errors';
import { checkMetadata, checkTags, initialStatus, nodeFromDefinition } from './node-definition';
import { Draft, type PlanEdit } from './plan-draft';
import { IN_WORK, checkNewDefinitions, refuseCycle, refuseIfRunning, requireNode } from './plan-edit-checks';
import type { TaskGraph, TaskMetadataValue, TaskNode, TaskNodeDefinition, TaskPriority } from './task-graph';
import { TaskStatus } from './task-status';

export type { PlanEdit } from './plan-draft';
export { checkRevision } from './plan-edit-checks';

/**
 * `add_tasks`: new tasks in the init_project_graph node shape, depending on existing or new ones. A new task whose
 * dependencies are all COMPLETED is READY, else PENDING. Refuses existing ids, unknown dependencies and cycles.
 */
export function addTasks(graph: TaskGraph, defs: readonly TaskNodeDefinition[], now: string): PlanEdit {
  const draft = new Draft(graph, now);
  checkNewDefinitions(draft, defs, 'nodes');
  const added = defs.map((d) => nodeFromDefinition(d, TaskStatus.Pending, now));
  for (const n of added) draft.put(n);
  // Existing tasks cannot depend on new ones, so a cycle can only run through the new tasks.
  refuseCycle(added);
  for (const n of topological(added)) {
    const status = initialStatus(n.depends_on, draft.statusOf);
    draft.put({ ...draft.node(n.id)!, status });
    draft.transitions.push({ node: n.id, from: status, to: status, time: now, attempt: 0 });
  }
  return draft.build(added.map((n) => n.id));
}

/** The fields `update_task` may change (`description: null` or `validation_command: ""` remove them). */
export interface TaskPatch {
  title?: string;
  description?: string | null;
  validation_command?: string | null;
  max_attempts?: number;
  timeout_ms?: number;
  output_tail_bytes?: number | null;
  depends_on?: string[];
  priority?: TaskPriority;
  tags?: string[];
  metadata?: Record<string, TaskMetadataValue> | null;
}

/**
 * `update_task`. Refused while the task's command runs; a change of dependencies is refused (`has_progress`) while
 * the task is IN_PROGRESS, VALIDATING or RETRYING. On a COMPLETED task, a change of what "done" means (its
 * validation command or its dependencies) sends it back to READY/PENDING (attempts cleared, as reset_task_node does)
 * and every COMPLETED, READY or FAILED task downstream to PENDING; refused (`has_dependents`) while a task downstream
 * has work under way. Other edits keep the status. A PENDING/READY task whose dependencies change is re-settled.
 */
export function updateTask(graph: TaskGraph, nodeId: string, patch: TaskPatch, now: string): PlanEdit {
  const draft = new Draft(graph, now);
  const node = requireNode(graph, draft, nodeId);
  refuseIfRunning(node, 'update_task');
  checkTags(patch.tags, 'tags');
  if (patch.metadata !== null) checkMetadata(patch.metadata, 'metadata');
  const next: TaskNode = { ...node };
  const set = <K extends keyof TaskNode>(k: K, v: TaskNode[K] | null | undefined) => {
    if (v === undefined) return;
    if (v === null) delete next[k];
    else next[k] = v as TaskNode[K];
  };
  set('title', patch.title);
  set('description', patch.description);
  set('validation_command', patch.validation_command === '' || patch.validation_command?.trim() === '' ? null : patch.validation_command);
  set('max_attempts', patch.max_attempts);
  set('timeout_ms', patch.timeout_ms);
  set('output_tail_bytes', patch.output_tail_bytes);
  set('priority', patch.priority);
  if (patch.tags !== undefined) next.tags = [...new Set(patch.tags)];
  set('metadata', patch.metadata === null ? null : patch.metadata && { ...patch.metadata });
  let depsChanged = false;
  if (patch.depends_on !== undefined) {
    const deps = [...new Set(patch.depends_on)];
    for (const d of deps) {
      if (d === nodeId) throw new CycleDetectedError([nodeId, nodeId]);
      if (!draft.node(d)) throw new InvalidArgumentsError(`depends_on: task '${nodeId}' would depend on unknown task '${d}'`, 'depends_on');
    }
    depsChanged = deps.length !== node.depends_on.length || deps.some((d) => !node.depends_on.includes(d));
    if (depsChanged && IN_WORK.includes(node.status)) {
      throw new HasProgressError(`task '${nodeId}' is ${node.status}: its dependencies cannot change while its work is under way (reset_task_node or release_task it first)`, [nodeId]);
    }
    next.depends_on = deps;
  }
  draft.put(next);
  if (depsChanged) refuseCycle(draft.values());
  const commandChanged = (next.validation_command ?? '') !== (node.validation_command ?? '');
  if (node.status === TaskStatus.Completed && (depsChanged || commandChanged)) {
    sendBack(draft, nodeId);
  } else if (depsChanged) {
    draft.settle([nodeId]);
  }
  return draft.build([nodeId]);
}

/** A COMPLETED task's "done" changed: it and everything downstream go back (see {@link updateTask}). */
function sendBack(draft: Draft, nodeId: string): void {
  const dependents = draft.dependents();
  const downstream: string[] = [];
  const seen = new Set<string>([nodeId]);
  const queue = [nodeId];
  while (queue.length) {
    for (const d of dependents.get(queue.shift()!) ?? []) {
      if (seen.has(d)) continue;
      seen.add(d);
      downstream.push(d);
      queue.push(d);
    }
  }
  const busy = downstream.map((id) => draft.node(id)!).filter((n) => IN_WORK.includes(n.status));
  if (busy.length) {
    throw new HasDependentsError(
      `task '${nodeId}' is COMPLETED and this edit changes what done means, which would send back task(s) ` +
        `${busy.map((n) => `${n.id} (${n.status})`).join(', ')} whose work is under way; finish, release or reset them first`,
      busy.map((n) => n.id),
    );
  }
  const cleared = { current_attempt: 0, validating_since: undefined, owner: undefined };
  draft.setStatus(nodeId, initialStatus(draft.node(nodeId)!.depends_on, draft.statusOf), cleared, false);
  for (const id of downstream) {
    const n = draft.node(id)!;
    if (n.status === TaskStatus.Pending) continue;
    draft.setStatus(id, TaskStatus.Pending, n.status === TaskStatus.Ready ? {} : cleared);
  }
  stripUndefined(draft, [nodeId, ...downstream]);
}

function stripUndefined(draft: Draft, ids: string[]): void {
  for (const id of ids) {
    const n = { ...draft.node(id)! } as Record<string, unknown>;
    for (const k of Object.keys(n)) if (n[k] === undefined) delete n[k];
    draft.put(n as unknown as TaskNode);
  }
}

/**
 * `remove_tasks`: refused while any of them runs (VALIDATING) and while a remaining task depends on one
 * (`has_dependents`, naming them) unless the same call removes it too or re-points it (`repoint`: a remaining task's
 * new depends_on). Tasks whose last unfinished dependency was removed become READY.
 */
export function removeTasks(graph: TaskGraph, ids: readonly string[], repoint: Readonly<Record<string, string[]>>, now: string): PlanEdit {
  const draft = new Draft(graph, now);
  const gone = new Set(ids);
  if (gone.size === 0) throw new InvalidArgumentsError('nodeIds: at least one task id is needed', 'nodeIds');
  for (const id of gone) refuseIfRunning(requireNode(graph, draft, id), 'remove_tasks');
  if (gone.size === graph.nodes.length) throw new InvalidArgumentsError('nodeIds: a project keeps at least one task (init_project_graph with replace: true starts it over)', 'nodeIds');
  for (const [id, deps] of Object.entries(repoint)) {
    const n = requireNode(graph, draft, id);
    if (gone.has(id)) throw new InvalidArgumentsError(`repoint.${id}: task '${id}' is removed by this call`, `repoint.${id}`);
    for (const d of deps) {
      if (gone.has(d) || !draft.node(d)) throw new InvalidArgumentsError(`repoint.${id}: task '${d}' is ${gone.has(d) ? 'removed by this call' : 'unknown'}`, `repoint.${id}`);
    }
    const nextDeps = [...new Set(deps)];
    if (IN_WORK.includes(n.status) && initialStatus(nextDeps, draft.statusOf) !== TaskStatus.Ready) {
      throw new HasProgressError(`task '${id}' is ${n.status}: it cannot be re-pointed to unfinished tasks while its work is under way`, [id]);
    }
    draft.put({ ...n, depends_on: nextDeps });
  }
  const blocking = [...draft.values()].filter((n) => !gone.has(n.id) && n.depends_on.some((d) => gone.has(d)));
  if (blocking.length) {
    throw new HasDependentsError(
      `cannot remove ${[...gone].join(', ')}: remaining task(s) ${blocking.map((n) => `${n.id} (depends on ${n.depends_on.filter((d) => gone.has(d)).join(', ')})`).join('; ')} ` +
        'depend on them; remove those too or re-point them (repoint: {id: [new dependencies]})',
      blocking.map((n) => n.id),
    );
  }
  if (Object.keys(repoint).length) refuseCycle([...draft.values()].filter((n) => !gone.has(n.id)));
  for (const id of gone) draft.remove(id);
  draft.settle(Object.keys(repoint));
  return draft.build([...gone, ...Object.keys(repoint)]);
}

/**
 * `split_task`: one task becomes several. The new tasks that depend on none of the others inherit the old task's
 * dependencies; the dependents of the old task depend on the new leaves (those no other new task depends on); the
 * first new task carries the old one's history (its attempt records, `split_from`). The first may keep the old id.
 * Refused while the task has work under way or is COMPLETED (`has_progress`).
 */
export function splitTask(graph: TaskGraph, nodeId: string, into: readonly TaskNodeDefinition[], now: string): PlanEdit {
  const draft = new Draft(graph, now);
  const old = requireNode(graph, draft, nodeId);
  if (IN_WORK.includes(old.status) || old.status === TaskStatus.Completed) {
    throw new HasProgressError(`task '${nodeId}' is ${old.status}: only a task not started (PENDING, READY) or FAILED can be split; reset_task_node it first`, [nodeId]);
  }
  if (!Array.isArray(into) || into.length < 2) throw new InvalidArgumentsError('into: a split needs at least two tasks', 'into');
  checkNewDefinitions(draft, into, 'into', new Set([nodeId]));
  const newIds = new Set(into.map((d) => d.id));
  const dependedOn = new Set(into.flatMap((d) => (d.depends_on ?? []).filter((x: string) => newIds.has(x))));
  const made = into.map((d, i) => {
    const inner = (d.depends_on ?? []).some((x: string) => newIds.has(x));
    const deps = inner ? (d.depends_on ?? []) : [...old.depends_on, ...(d.depends_on ?? [])];
    const n = nodeFromDefinition({ ...d, depends_on: deps }, TaskStatus.Pending, now);
    if (i === 0) {
      n.error_logs = old.error_logs;
      if (old.last_run) n.last_run = old.last_run;
      if (d.id !== nodeId) n.split_from = old.split_from ?? nodeId;
      else if (old.split_from) n.split_from = old.split_from;
    }
    return n;
  });
  const leaves = made.filter((n) => !dependedOn.has(n.id)).map((n) => n.id);
  draft.remove(nodeId);
  for (const n of made) draft.put(n);
  const repointed: string[] = [];
  for (const n of [...draft.values()]) {
    if (!n.depends_on.includes(nodeId) || newIds.has(n.id)) continue;
    draft.put({ ...n, depends_on: [...new Set(n.depends_on.flatMap((d) => (d === nodeId ? leaves : [d])))] });
    repointed.push(n.id);
  }
  refuseCycle(draft.values());
  for (const n of topological(made)) {
    const status = initialStatus(n.depends_on, draft.statusOf);
    draft.put({ ...draft.node(n.id)!, status });
    if (n.id === nodeId) {
      if (status !== old.status) draft.transitions.push({ node: n.id, from: old.status, to: status, time: now, attempt: 0 });
    } else {
      draft.transitions.push({ node: n.id, from: status, to: status, time: now, attempt: 0 });
    }
  }
  draft.settle(repointed);
  return draft.build([nodeId, ...made.map((m) => m.id).filter((id) => id !== nodeId), ...repointed], { inPlaceOf: nodeId });
}

/** New nodes in an order where each comes after the new nodes it depends on (they hold no cycle). */
function topological(nodes: readonly TaskNode[]): TaskNode[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out: TaskNode[] = [];
  const done = new Set<string>();
  const visit = (start: TaskNode) => {
    const stack = [start];
    while (stack.length) {
      const cur = stack[stack.length - 1];
      if (done.has(cur.id)) {
        stack.pop();
        continue;
      }
      const waiting = cur.depends_on.map((d) => byId.get(d)).filter((d): d is TaskNode => d !== undefined && !done.has(d.id));
      if (waiting.length) {
        stack.push(...waiting);
        continue;
      }
      done.add(cur.id);
      out.push(cur);
      stack.pop();
    }
  };
  for (const n of nodes) visit(n);
  return out;
}
