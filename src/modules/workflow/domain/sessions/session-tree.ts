import type { Blocker, NodeState, SessionEvent, StepPointer } from './session-events';
import { addNote, mergeContext } from './session-state';

/**
 * The whole tree of a session, folded from its full log. Only needed off the fast path — a fork from an earlier
 * node, a stale token replayed, the timeline — so it may cost O(log length); the head alone comes from the snapshot.
 */
interface TreeNode {
  parent?: number;
  completionId?: string;
  title?: string;
  notes?: string;
  /** Context patches applied to this node (the advance that made it, then blocked attempts on it). */
  patches: Array<Record<string, unknown> | undefined>;
  current: StepPointer | null;
  blockedAttempts: number;
}

/** A previous call from a node, recognised by its output hash. */
export type PriorOutcome =
  | { kind: 'advanced'; from: number; node: number }
  | { kind: 'blocked'; node: number; blockers: Blocker[]; attempt: number; exhausted: boolean };

export class SessionTree {
  private readonly nodes = new Map<number, TreeNode>();
  private readonly outcomes = new Map<string, PriorOutcome>();
  private baseContext: Record<string, unknown> = {};

  constructor(events: readonly SessionEvent[]) {
    for (const e of events) this.apply(e);
  }

  has(node: number): boolean {
    return this.nodes.has(node);
  }

  /** The state of any node, rebuilt by walking its ancestors (O(depth)). */
  stateAt(node: number): NodeState | undefined {
    const target = this.nodes.get(node);
    if (!target) return undefined;
    const path: TreeNode[] = [];
    for (let n: TreeNode | undefined = target; n; n = n.parent === undefined ? undefined : this.nodes.get(n.parent)) path.push(n);
    path.reverse();
    let context = this.baseContext;
    const completedSteps: string[] = [];
    let recentNotes: NodeState['recentNotes'] = [];
    for (const n of path) {
      if (n.completionId !== undefined) {
        completedSteps.push(n.completionId);
        recentNotes = addNote(recentNotes, n.completionId, n.title ?? n.completionId, n.notes);
      }
      for (const p of n.patches) context = mergeContext(context, p);
    }
    return { node, completedSteps, context, current: target.current, blockedAttempts: target.blockedAttempts, recentNotes };
  }

  /** The node from which an ancestor of `node` (or `node` itself) was made by completing `completionId`. */
  advancedFrom(node: number, completionId: string): number | undefined {
    for (let n = this.nodes.get(node); n; n = n.parent === undefined ? undefined : this.nodes.get(n.parent)) {
      if (n.completionId === completionId) return n.parent;
    }
    return undefined;
  }

  /** What a call from `node` with this output hash already produced, if it was made before (latest wins). */
  priorOutcome(node: number, outputHash: string): PriorOutcome | undefined {
    return this.outcomes.get(`${node}:${outputHash}`);
  }

  private apply(e: SessionEvent): void {
    switch (e.kind) {
      case 'session_started':
        this.baseContext = e.context;
        this.nodes.set(0, { patches: [], current: e.next, blockedAttempts: 0 });
        return;
      case 'step_completed':
        this.nodes.set(e.node, {
          parent: e.from,
          completionId: e.completionId,
          title: e.title,
          notes: e.notesMarkdown,
          patches: [e.contextPatch],
          current: e.next,
          blockedAttempts: 0,
        });
        this.outcomes.set(`${e.from}:${e.outputHash}`, { kind: 'advanced', from: e.from, node: e.node });
        return;
      case 'output_blocked': {
        const n = this.nodes.get(e.node);
        if (n) {
          n.patches.push(e.contextPatch);
          n.blockedAttempts = e.attempt;
        }
        this.outcomes.set(`${e.node}:${e.outputHash}`, {
          kind: 'blocked',
          node: e.node,
          blockers: e.blockers,
          attempt: e.attempt,
          exhausted: e.exhausted,
        });
        return;
      }
      default:
        return;
    }
  }
}
