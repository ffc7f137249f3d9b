import { ConflictError, CycleDetectedError, InvalidArgumentsError, NotFoundError } from '../../../kernel/errors';
import { findCycle } from './graph-checks';
import { checkDefinitionFields } from './node-definition';
import type { Draft } from './plan-draft';
import type { TaskGraph, TaskNode, TaskNodeDefinition } from './task-graph';
import { TaskStatus } from './task-status';

/** What the plan edits (plan-edits.ts) refuse, each check written once: stale revisions, unknown tasks, work under way, cycles, bad definitions. */

/** Statuses in which a task has work under way: its dependencies cannot change, it cannot be split. */
export const IN_WORK: readonly TaskStatus[] = [TaskStatus.InProgress, TaskStatus.Validating, TaskStatus.Retrying];

/** Refuses a compare-and-set whose expected revision is stale. @throws ConflictError naming both revisions. */
export function checkRevision(graph: TaskGraph, expected: number | undefined): void {
  if (expected === undefined || expected === graph.revision) return;
  throw new ConflictError(
    `project '${graph.project_id}' is at revision ${graph.revision}, not the expected ${expected}: another change came first; ` +
      'reload it (get_project_graph) and retry with expectedRevision ' + graph.revision,
    { project: graph.project_id, revision: graph.revision, expectedRevision: expected },
  );
}

export function requireNode(graph: TaskGraph, draft: Draft, id: string): TaskNode {
  const n = draft.node(id);
  if (!n) throw new NotFoundError('task', id, `task '${id}' not found in project '${graph.project_id}'`);
  return n;
}

export function refuseIfRunning(n: TaskNode, call: string): void {
  if (n.status === TaskStatus.Validating) {
    throw new ConflictError(`task '${n.id}' is VALIDATING since ${n.validating_since}: its command runs; ${call} is refused until validate_task_loop returns`, { node: n.id });
  }
}

/** Refuses a cycle among `nodes` (the whole graph after the edit), naming it. */
export function refuseCycle(nodes: Iterable<TaskNode>): void {
  const cycle = findCycle([...nodes]);
  if (cycle) throw new CycleDetectedError(cycle);
}

/** Checks new definitions: ids unique and new, dependencies known (in the graph or among them). */
export function checkNewDefinitions(draft: Draft, defs: readonly TaskNodeDefinition[], field: string, allowIds: ReadonlySet<string> = new Set()): void {
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
