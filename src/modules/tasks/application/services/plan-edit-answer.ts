import { requireClaimant, type Claimant, type PlanEdit, type TaskGraph, type TaskNode } from '../../domain';
import { TaskMessages } from './task-messages';

/** The answer of add_tasks, update_task, remove_tasks and split_task (`planEditAnswer` in tasks.tool-schemas.ts). */
export interface PlanEditAnswer {
  nodes: TaskNode[];
  removed?: string[];
  cascaded: { id: string; status: TaskNode['status'] }[];
  message: string;
  revision: number;
}

/** The answer of an edit: the tasks it concerns as they are now (those still there), the cascade and the revision. */
export function editAnswer(edit: PlanEdit, revision: number, what: string, removed?: string[]): PlanEditAnswer {
  // A few tasks are found by a scan; a map of every task only pays off for many.
  const find: (id: string) => TaskNode | undefined =
    edit.nodes.length <= 16
      ? (id) => edit.graph.nodes.find((n) => n.id === id)
      : ((byId) => (id: string) => byId.get(id))(new Map(edit.graph.nodes.map((n) => [n.id, n])));
  const nodes = edit.nodes.map(find).filter((n): n is TaskNode => n !== undefined);
  const answer: PlanEditAnswer = { nodes, cascaded: edit.cascaded, message: TaskMessages.edited(what, edit.cascaded), revision };
  if (removed) answer.removed = removed;
  return answer;
}

/** Refuses an edit of tasks another agent claims (naming the claimant and the lapse). */
export function requireEditable(graph: TaskGraph, ids: readonly string[], who: Claimant, nowMs: number, call: string): void {
  const wanted = new Set(ids);
  for (const n of graph.nodes) if (wanted.has(n.id)) requireClaimant(n, who, nowMs, call);
}
