import type { TaskGraph, TaskNode } from './task-graph';
import { ALL_TASK_STATUSES, isStartable, type TaskStatus } from './task-status';

/** Nodes an agent can start now: READY and RETRYING, in graph order. */
export function startableNodes(graph: TaskGraph): TaskNode[] {
  return graph.nodes.filter((n) => isStartable(n.status));
}

/** How many nodes are in each status (every status present, zero when none). */
export function countByStatus(graph: TaskGraph): Record<TaskStatus, number> {
  const counts = Object.fromEntries(ALL_TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  for (const n of graph.nodes) counts[n.status] += 1;
  return counts;
}

/** Direct dependents of a node. */
export function dependentsOf(graph: TaskGraph, nodeId: string): TaskNode[] {
  return graph.nodes.filter((n) => n.depends_on.includes(nodeId));
}
