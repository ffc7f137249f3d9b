import type { TaskErrorLog, TaskGraph, TaskNode, TaskTransition } from './task-graph';
import { TaskStatus } from './task-status';

/*
 * The working copy the task state machine (task-transitions.ts) changes while it applies one event: the input graph
 * is never modified, and every status change is recorded for the transition log.
 */

/** The time of a transition, as ISO text (stored) and milliseconds (for the stale rule). */
export interface TransitionTime {
  iso: string;
  ms: number;
}

/** Copy-on-write view of a graph that records every status change. */
export class GraphDraft {
  readonly transitions: TaskTransition[] = [];
  readonly unlocked: string[] = [];
  readonly reverted: string[] = [];
  private readonly changed = new Map<string, TaskNode>();

  constructor(private readonly base: TaskGraph, private readonly at: TransitionTime) {}

  get(id: string): TaskNode | undefined {
    return this.changed.get(id) ?? this.base.nodes.find((n) => n.id === id);
  }

  set(id: string, to: TaskNode['status'], patch: Partial<TaskNode>, attempt: number, record?: TaskErrorLog): void {
    const current = this.get(id)!;
    this.patch(id, { ...patch, status: to, updated_at: this.at.iso });
    const t: TaskTransition = { node: id, from: current.status, to, time: this.at.iso, attempt };
    if (record) t.record = record;
    this.transitions.push(t);
  }

  /** Changes fields of a node without a status change (no transition recorded); `undefined` removes a field. */
  patch(id: string, patch: Partial<TaskNode>): void {
    const next: TaskNode = { ...this.get(id)!, ...patch };
    for (const key of Object.keys(patch) as (keyof TaskNode)[]) if (patch[key] === undefined) delete (next as Partial<TaskNode>)[key];
    this.changed.set(id, next);
  }

  allDepsCompleted(node: TaskNode): boolean {
    return node.depends_on.every((d) => this.get(d)?.status === TaskStatus.Completed);
  }

  build(): TaskGraph {
    if (this.changed.size === 0) return this.base;
    return {
      ...this.base,
      updated_at: this.at.iso,
      nodes: this.base.nodes.map((n) => this.changed.get(n.id) ?? n),
    };
  }
}
