import type { NodeExecutionRecord } from './types';

/**
 * The path a graph run took, from its node executions in order: how often each node ran, and how often the run went
 * from one node to the next (an edge taken; a loop's edges taken once per round). What a drawing of the run marks.
 * Pure: the executions are read once, in the order given.
 */
export interface RunPath {
  /** Node id → its executions. */
  visits: Record<string, number>;
  /** The edges taken, each with how often, in the order first taken. */
  traversals: Array<{ source: string; target: string; count: number }>;
}

export function runPath(executions: readonly Pick<NodeExecutionRecord, 'nodeId'>[]): RunPath {
  // No prototype: a node may be called anything, `__proto__` included.
  const visits: Record<string, number> = Object.create(null) as Record<string, number>;
  const taken = new Map<string, { source: string; target: string; count: number }>();
  let previous: string | undefined;
  for (const e of executions) {
    visits[e.nodeId] = (visits[e.nodeId] ?? 0) + 1;
    if (previous !== undefined) {
      const key = JSON.stringify([previous, e.nodeId]);
      const t = taken.get(key);
      if (t) t.count++;
      else taken.set(key, { source: previous, target: e.nodeId, count: 1 });
    }
    previous = e.nodeId;
  }
  return { visits, traversals: [...taken.values()] };
}
