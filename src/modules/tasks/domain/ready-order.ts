import { liveClaim, sameClaimant } from './claims';
import { DEFAULT_PRIORITY, type Claimant, type TaskGraph, type TaskMetadataValue, type TaskNode, type TaskPriority } from './task-graph';
import { isStartable, TaskStatus } from './task-status';

const RANK: Record<TaskPriority, number> = { high: 0, medium: 1, low: 2 };

/** What `get_ready_tasks` and `claim_next_task` may narrow the ready tasks to: every tag given, every metadata value. */
export interface ReadyFilter {
  tags?: readonly string[];
  metadata?: Readonly<Record<string, TaskMetadataValue>>;
}

/** A startable task with how many unfinished tasks wait on it, directly or further down. */
export interface RankedTask {
  node: TaskNode;
  unblocks: number;
}

export function matchesFilter(node: TaskNode, filter: ReadyFilter = {}): boolean {
  if (filter.tags?.some((t) => !(node.tags ?? []).includes(t))) return false;
  for (const [k, v] of Object.entries(filter.metadata ?? {})) if (node.metadata?.[k] !== v) return false;
  return true;
}

/**
 * The startable tasks (READY, RETRYING) in the order an agent should take them: priority (high, medium, low), then
 * how many unfinished tasks each unblocks (its dependents, transitively), then graph order. With `who`, tasks another
 * claimant holds are left out (a RETRYING task stays claimed by the agent whose attempt failed).
 */
export function rankReadyTasks(graph: TaskGraph, opts: { filter?: ReadyFilter; who?: Claimant; nowMs?: number } = {}): RankedTask[] {
  const ready = graph.nodes.filter((n) => isStartable(n.status) && matchesFilter(n, opts.filter));
  if (opts.who) {
    const who = opts.who;
    const now = opts.nowMs ?? Date.now();
    for (let i = ready.length - 1; i >= 0; i--) {
      const c = liveClaim(ready[i], now);
      if (c && !sameClaimant(c, who)) ready.splice(i, 1);
    }
  }
  if (ready.length === 0) return [];
  const counts = unblockCounts(graph, ready);
  const index = new Map(graph.nodes.map((n, i) => [n.id, i]));
  return ready
    .map((node) => ({ node, unblocks: counts.get(node.id) ?? 0 }))
    .sort(
      (a, b) =>
        RANK[a.node.priority ?? DEFAULT_PRIORITY] - RANK[b.node.priority ?? DEFAULT_PRIORITY] ||
        b.unblocks - a.unblocks ||
        index.get(a.node.id)! - index.get(b.node.id)!,
    );
}

/**
 * For each of `roots`: the number of distinct unfinished tasks downstream of it. One walk per root over the
 * dependents map (built once), so O(roots × downstream) — bounded by the graph for one root.
 */
function unblockCounts(graph: TaskGraph, roots: readonly TaskNode[]): Map<string, number> {
  const dependents = new Map<string, string[]>();
  for (const n of graph.nodes) {
    if (n.status === TaskStatus.Completed) continue;
    for (const d of n.depends_on) (dependents.get(d) ?? dependents.set(d, []).get(d)!).push(n.id);
  }
  const out = new Map<string, number>();
  for (const r of roots) {
    const first = dependents.get(r.id);
    if (!first) {
      out.set(r.id, 0);
      continue;
    }
    const seen = new Set<string>();
    const stack = [...first];
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const d of dependents.get(id) ?? []) if (!seen.has(d)) stack.push(d);
    }
    out.set(r.id, seen.size);
  }
  return out;
}
