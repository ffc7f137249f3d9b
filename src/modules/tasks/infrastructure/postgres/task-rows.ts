import type { TaskGraph, TaskNode } from '../../domain/task-graph';

/** A task row to write: the node, its position in the graph's order. */
export interface TaskRow {
  node: TaskNode;
  position: number;
}

/** What a new revision of a graph changes in its rows: rows to insert or overwrite, ids to delete. */
export interface RowChanges {
  upserts: TaskRow[];
  deletes: string[];
}

/**
 * Where each task row of the graphs this process holds sits in its graph's order (`wg_tasks.position`), keyed by the
 * node object: nodes are immutable (every change makes a new object, unchanged ones keep theirs), so an unchanged node
 * keeps its position without any per-edit copy of a map of every task. Set only for rows known to be stored.
 */
export class RowPositions {
  private readonly of = new WeakMap<TaskNode, number>();

  get(node: TaskNode): number | undefined {
    return this.of.get(node);
  }

  /** Records where rows now are (after they were read, or after a write of them committed). */
  record(rows: readonly TaskRow[]): void {
    for (const r of rows) this.of.set(r.node, r.position);
  }
}

/** Positions 1, 2, 3, … for a graph written whole. */
export function wholeGraphRows(nodes: readonly TaskNode[]): TaskRow[] {
  return nodes.map((node, i) => ({ node, position: i + 1 }));
}

/**
 * The rows a change from `current` (whose rows are stored, at the positions `positions` knows) to `next` writes: the
 * nodes that are new objects (changed or added), and the ids no longer there. Positions keep their order: a task put
 * between two gets a position between theirs, one appended the last one + 1; when the order of kept tasks changed or
 * no number fits between two neighbours, every task is renumbered (a rare, whole rewrite). O(n) reference compares for
 * the common edits (same ids in the same order, or tasks appended), with no map of every task.
 */
export function rowChanges(current: TaskGraph, next: TaskGraph, positions: RowPositions): RowChanges {
  const cur = current.nodes;
  const nxt = next.nodes;
  let prefix = 0;
  const shorter = Math.min(cur.length, nxt.length);
  while (prefix < shorter && cur[prefix].id === nxt[prefix].id) prefix++;
  if (prefix === cur.length) {
    // Same ids in the same order, perhaps with tasks appended.
    const upserts: TaskRow[] = [];
    for (let i = 0; i < prefix; i++) if (nxt[i] !== cur[i]) upserts.push({ node: nxt[i], position: positions.get(cur[i])! });
    let last = prefix ? positions.get(cur[prefix - 1])! : 0;
    for (let i = prefix; i < nxt.length; i++) upserts.push({ node: nxt[i], position: ++last });
    return { upserts, deletes: [] };
  }
  return generalChanges(cur, nxt, positions);
}

/** Any other change (tasks removed, put in between, re-ordered): one map of the current ids. */
function generalChanges(cur: readonly TaskNode[], nxt: readonly TaskNode[], positions: RowPositions): RowChanges {
  const before = new Map<string, TaskNode>();
  for (const n of cur) before.set(n.id, n);
  const kept = new Set<string>();
  // The position each next node had (undefined: a new task).
  const old: (number | undefined)[] = nxt.map((n) => {
    const was = before.get(n.id);
    if (!was) return undefined;
    kept.add(n.id);
    return positions.get(was)!;
  });
  const deletes = cur.filter((n) => !kept.has(n.id)).map((n) => n.id);
  const placed = place(old);
  if (!placed) return { upserts: wholeGraphRows(nxt), deletes };
  const upserts: TaskRow[] = [];
  nxt.forEach((node, i) => {
    const was = before.get(node.id);
    if (!was || was !== node || old[i] !== placed[i]) upserts.push({ node, position: placed[i] });
  });
  return { upserts, deletes };
}

/**
 * Positions for a sequence where kept tasks have theirs and new ones (undefined) need one between their neighbours.
 * Undefined when kept positions are out of order or a gap is too narrow (the caller renumbers everything).
 */
function place(old: readonly (number | undefined)[]): number[] | undefined {
  const out: number[] = new Array(old.length);
  let prev = -Infinity;
  let i = 0;
  while (i < old.length) {
    const p = old[i];
    if (p !== undefined) {
      if (!(p > prev)) return undefined;
      out[i] = prev = p;
      i++;
      continue;
    }
    let j = i;
    while (j < old.length && old[j] === undefined) j++;
    const k = j - i;
    const hi = j < old.length ? old[j]! : Infinity;
    const lo = prev === -Infinity ? (hi === Infinity ? 0 : hi - k - 1) : prev;
    const step = hi === Infinity ? 1 : (hi - lo) / (k + 1);
    for (let m = 0; m < k; m++) {
      const q = lo + step * (m + 1);
      if (!(q > prev) || !(q < hi)) return undefined;
      out[i + m] = prev = q;
    }
    i = j;
  }
  return out;
}
