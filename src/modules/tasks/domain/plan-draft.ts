import { initialStatus } from './node-definition';
import type { TaskGraph, TaskNode, TaskTransition } from './task-graph';
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

/** Lookups of a graph's nodes by a linear scan before a draft builds an index of them (a map of every node costs more than a few scans of a large plan). */
const SCANS_BEFORE_INDEX = 16;

/**
 * A working copy of a graph's nodes by id, recording status changes: the graph's nodes stay as they are and the
 * draft keeps only what the edit changes, added or removed, so an edit of a few tasks in a large plan costs a few
 * lookups and one pass that builds the new node list.
 */
export class Draft {
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
