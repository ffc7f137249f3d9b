import type { KnowledgeWriter } from '../ports/knowledge-store';
import { restoredSummary, summaryAwaits, type StoredKnowledgeNode } from '../../domain';

export interface DroppedParents {
  nodeId: string;
  /** Parents of the deleted node that no longer exist, dropped from the restored node. */
  parents: string[];
}

export interface RestoredIntoGraph {
  restored: string[];
  dropped: DroppedParents[];
  /** Summaries that got back the text and segment they had before these nodes were deleted. */
  summaries: string[];
}

/**
 * Puts nodes back into a locked graph as its newest (parents before children), dropping parents that no longer
 * exist, and brings back the summaries that were waiting for them. Shared by restore_nodes (nodes from their
 * deletion records) and restoring a backup (nodes the backup holds that the graph lacks).
 */
export async function restoreIntoGraph(graph: KnowledgeWriter, nodes: readonly StoredKnowledgeNode[], signal?: AbortSignal): Promise<RestoredIntoGraph> {
  const wanted = new Set(nodes.map((n) => n.id));
  const outside = new Set<string>();
  for (const n of nodes) for (const p of n.parents) if (!wanted.has(p)) outside.add(p);
  const present = await graph.findByIds(outside, signal);
  const dropped: DroppedParents[] = [];
  const ordered = parentsFirst(nodes).map((node) => {
    const gone = node.parents.filter((p) => !wanted.has(p) && !present.has(p));
    if (!gone.length) return node;
    dropped.push({ nodeId: node.id, parents: gone });
    return { ...node, parents: node.parents.filter((p) => !gone.includes(p)) };
  });
  await graph.restore(ordered);
  const summaries = await restoreSummaries(graph, wanted, signal);
  return { restored: ordered.map((n) => n.id), dropped, summaries };
}

/**
 * Summaries recalculated when these nodes were deleted get their previous text and segment back once every node
 * that deletion removed from them exists again (see restoredSummary). Also run by the files store's next writer when
 * a restore was interrupted before it (NdjsonGraphWriter.repairInterrupted): the restore's marker stays until then.
 */
export async function restoreSummaries(graph: Pick<KnowledgeWriter, 'findSummariesMentioning' | 'findByIds' | 'updateNodes'>, restored: ReadonlySet<string>, signal?: AbortSignal): Promise<string[]> {
  const waiting = (await graph.findSummariesMentioning(restored, signal)).filter((node) => summaryAwaits(node, restored));
  if (!waiting.length) return [];
  const needed = new Set<string>();
  for (const s of waiting) for (const v of s.summaryHistory ?? []) for (const id of v.deletedNodeIds) if (!restored.has(id)) needed.add(id);
  const present = await graph.findByIds(needed, signal);
  const exists = (id: string) => restored.has(id) || present.has(id);
  return graph.updateNodes(new Set(waiting.map((s) => s.id)), (node) => restoredSummary(node, exists));
}

/** Orders nodes so each comes after its parents among them (they formed a DAG when stored); input order otherwise. */
function parentsFirst(nodes: readonly StoredKnowledgeNode[]): StoredKnowledgeNode[] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const out: StoredKnowledgeNode[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (n: StoredKnowledgeNode) => {
    if (state.get(n.id)) return; // 'visiting' means a cycle in hand-edited data: break it here
    state.set(n.id, 'visiting');
    for (const p of n.parents) {
      const parent = byId.get(p);
      if (parent) visit(parent);
    }
    state.set(n.id, 'done');
    out.push(n);
  };
  nodes.forEach(visit);
  return out;
}
