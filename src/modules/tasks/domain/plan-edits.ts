import { ConflictError, CycleDetectedError, HasDependentsError, HasProgressError, InvalidArgumentsError, NotFoundError } from '../../../kernel/errors';
import { findCycle } from './graph-checks';
import { checkDefinitionFields, checkMetadata, checkTags, initialStatus, nodeFromDefinition } from './node-definition';
import type { TaskGraph, TaskMetadataValue, TaskNode, TaskNodeDefinition, TaskPriority, TaskTransition } from './task-graph';
import { TaskStatus } from './task-status';

/** What a plan edit did: the new graph, the status changes for the log, and the tasks it concerned. */
export interface PlanEdit {
  graph: TaskGraph;
  transitions: TaskTransition[];
  /** Tasks added, changed or removed by the edit itself. */
  nodes: string[];
  /** Tasks whose status the edit changed as a consequence (a cascade), with their new status. */
  cascaded: { id: string; status: TaskStatus }[];
}

/** Statuses in which a task has work under way: its dependencies cannot change, it cannot be split. */
const IN_WORK: readonly TaskStatus[] = [TaskStatus.InProgress, TaskStatus.Validating, TaskStatus.Retrying];

/** Refuses a compare-and-set whose expected revision is stale. @throws ConflictError naming both revisions. */
export function checkRevision(graph: TaskGraph, expected: number | undefined): void {
  if (expected === undefined || expected === graph.revision) return;
  throw new ConflictError(
    `project '${graph.project_id}' is at revision ${graph.revision}, not the expected ${expected}: another change came first; ` +
      'reload it (get_project_graph) and retry with expectedRevision ' + graph.revision,
    { project: graph.project_id, revision: graph.revision, expectedRevision: expected },
  );
}

/** Lookups of a graph's nodes by a linear scan before a draft builds an index of them (a map of every node costs more than a few scans of a large plan). */
const SCANS_BEFORE_INDEX = 16;

/**
 * A working copy of a graph's nodes by id, recording status changes: the graph's nodes stay as they are and the
 * draft keeps only what the edit changes, added or removed, so an edit of a few tasks in a large plan costs a few
 * lookups and one pass that builds the new node list.
 */
class Draft {
  readonly transitions: TaskTransition[] = [];
  readonly cascaded = new Map<string, TaskStatus>();
  /** Nodes put by the edit (changed or added), by id. */
  private readonly changed = new Map<string, TaskNode>();
  private readonly removed = new Set<string>();
  /** Ids the graph did not have, in the order they were put. */
  private readonly added: string[] = [];
  /** Where ids are in the graph's node list (-1: not there): the ones looked up so far, or all once indexed. */
  private readonly seen = new Map<string, number>();
  private indexed = false;

  constructor(readonly graph: TaskGraph, readonly now: string) {}

  node(id: string): TaskNode | undefined {
    if (this.removed.has(id)) return undefined;
    return this.changed.get(id) ?? this.base(id);
  }

  put(node: TaskNode): void {
    if (!this.changed.has(node.id) && !this.base(node.id)) this.added.push(node.id);
    this.removed.delete(node.id);
    this.changed.set(node.id, node);
  }

  remove(id: string): void {
    this.removed.add(id);
    this.changed.delete(id);
  }

  /** Every node of the draft: the graph's in their order (as changed), then the added ones. */
  *values(): IterableIterator<TaskNode> {
    for (const n of this.graph.nodes) if (!this.removed.has(n.id)) yield this.changed.get(n.id) ?? n;
    for (const id of this.added) if (!this.removed.has(id)) yield this.changed.get(id)!;
  }

  setStatus(id: string, to: TaskStatus, extra: Partial<TaskNode> = {}, cascade = true): void {
    const n = this.node(id)!;
    if (n.status !== to) {
      this.transitions.push({ node: id, from: n.status, to, time: this.now, attempt: extra.current_attempt ?? n.current_attempt });
      if (cascade) this.cascaded.set(id, to);
    }
    const next: TaskNode = { ...n, ...extra, status: to, updated_at: n.status !== to ? this.now : n.updated_at };
    if (to !== TaskStatus.InProgress && to !== TaskStatus.Validating && to !== TaskStatus.Retrying) delete next.claim;
    this.put(next);
  }

  statusOf = (id: string): TaskStatus | undefined => this.node(id)?.status;

  /** Direct dependents of every node, computed once per edit (O(edges)). */
  dependents(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const n of this.values()) for (const d of n.depends_on) (out.get(d) ?? out.set(d, []).get(d)!).push(n.id);
    return out;
  }

  /** READY ↔ PENDING for not-yet-started nodes whose dependencies changed state. */
  settle(ids: Iterable<string>): void {
    for (const id of ids) {
      const n = this.node(id);
      if (!n || (n.status !== TaskStatus.Pending && n.status !== TaskStatus.Ready)) continue;
      const to = initialStatus(n.depends_on, this.statusOf);
      if (to !== n.status) this.setStatus(id, to);
    }
  }

  /**
   * The edit's result: the graph's nodes in their order (changed ones replaced, removed ones gone), the added ones at
   * the end — or, with `inPlaceOf`, right where that node of the graph is (a split).
   */
  build(nodes: string[], opts: { inPlaceOf?: string } = {}): PlanEdit {
    const addedNodes = this.added.filter((id) => !this.removed.has(id)).map((id) => this.changed.get(id)!);
    let list: TaskNode[];
    if (this.removed.size === 0 && opts.inPlaceOf === undefined) {
      // The common edit: a copy of the list with the changed nodes put in their places (each was looked up).
      list = this.graph.nodes.slice();
      for (const [id, node] of this.changed) {
        const i = this.indexOf(id);
        if (i >= 0) list[i] = node;
      }
      list.push(...addedNodes);
    } else {
      list = [];
      for (const n of this.graph.nodes) {
        if (!this.removed.has(n.id)) list.push(this.changed.get(n.id) ?? n);
        if (n.id === opts.inPlaceOf) list.push(...addedNodes);
      }
      if (opts.inPlaceOf === undefined) list.push(...addedNodes);
    }
    return {
      graph: { ...this.graph, updated_at: this.now, nodes: list },
      transitions: this.transitions,
      nodes,
      cascaded: [...this.cascaded].map(([id, status]) => ({ id, status })),
    };
  }

  /** A node of the graph as it was. */
  private base(id: string): TaskNode | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.graph.nodes[i];
  }

  /** Where a node is in the graph's list (-1: not there): a scan for the first few ids, then an index of all. */
  private indexOf(id: string): number {
    const known = this.seen.get(id);
    if (known !== undefined || this.indexed) return known ?? -1;
    if (this.seen.size < SCANS_BEFORE_INDEX) {
      const i = this.graph.nodes.findIndex((n) => n.id === id);
      this.seen.set(id, i);
      return i;
    }
    this.graph.nodes.forEach((n, i) => this.seen.set(n.id, i));
    this.indexed = true;
    return this.seen.get(id) ?? -1;
  }
}

function requireNode(graph: TaskGraph, draft: Draft, id: string): TaskNode {
  const n = draft.node(id);
  if (!n) throw new NotFoundError('task', id, `task '${id}' not found in project '${graph.project_id}'`);
  return n;
}

function refuseIfRunning(n: TaskNode, call: string): void {
  if (n.status === TaskStatus.Validating) {
    throw new ConflictError(`task '${n.id}' is VALIDATING since ${n.validating_since}: its command runs; ${call} is refused until validate_task_loop returns`, { node: n.id });
  }
}

/** Refuses a cycle among `nodes` (the whole graph after the edit), naming it. */
function refuseCycle(nodes: Iterable<TaskNode>): void {
  const cycle = findCycle([...nodes]);
  if (cycle) throw new CycleDetectedError(cycle);
}

/** Checks new definitions: ids unique and new, dependencies known (in the graph or among them). */
function checkNewDefinitions(draft: Draft, defs: readonly TaskNodeDefinition[], field: string, allowIds: ReadonlySet<string> = new Set()): void {
  if (!Array.isArray(defs) || defs.length === 0) throw new InvalidArgumentsError(`${field}: at least one task is needed`, field);
  const seen = new Map<string, number>();
  defs.forEach((d, i) => {
    if (seen.has(d.id)) throw new InvalidArgumentsError(`${field}[${i}].id: duplicate task id '${d.id}' (also ${field}[${seen.get(d.id)}])`, `${field}[${i}].id`);
    if (draft.node(d.id) && !allowIds.has(d.id)) throw new InvalidArgumentsError(`${field}[${i}].id: task '${d.id}' already exists in project '${draft.graph.project_id}' (use update_task to change it)`, `${field}[${i}].id`);
    seen.set(d.id, i);
  });
  defs.forEach((d, i) => {
    for (const dep of d.depends_on ?? []) {
      if (dep === d.id) throw new CycleDetectedError([d.id, d.id]);
      if ((!draft.node(dep) || allowIds.has(dep)) && !seen.has(dep)) {
        throw new InvalidArgumentsError(`${field}[${i}].depends_on: task '${d.id}' depends on unknown task '${dep}'`, `${field}[${i}].depends_on`);
      }
    }
  });
  checkDefinitionFields(defs, field);
}

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
