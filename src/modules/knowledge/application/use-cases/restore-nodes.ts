import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeGraphWriter, KnowledgeStore } from '../ports/knowledge-store';
import type { Logger } from '../../../../kernel/logger';
import { AlreadyExistsError, NotFoundError } from '../../../../kernel/errors';
import { restoredSummary, summaryAwaits, type DeletedNodeRecord, type StoredKnowledgeNode } from '../../domain';

export interface RestoreNodesInput {
  nodeIds: string[];
  projectContext: string;
}

export interface DroppedParents {
  nodeId: string;
  /** Parents of the deleted node that no longer exist, dropped from the restored node. */
  parents: string[];
}

export interface RestoreNodesOutput {
  success: boolean;
  restoredNodeIds: string[];
  droppedParents: DroppedParents[];
  /** Summaries recalculated when these nodes were deleted that got their previous text and segment back. */
  restoredSummaryIds: string[];
  warnings: string[];
}

/**
 * `restore_nodes`: puts soft-deleted nodes back (appended to the graph, parents before children) and removes their
 * records from the deleted file, all under the project lock. Ids without a deletion record, or that exist in the
 * graph again, are errors naming them and nothing is restored. Parents that no longer exist are dropped and reported.
 * The graph is appended first, so a crash in between leaves the node restored and its record still present — never a
 * node lost — and the next write under the lock removes that leftover record (see beginTwoFileChange).
 */
@injectable()
export class RestoreNodes {
  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: RestoreNodesInput, ctx?: CallContext): Promise<RestoreNodesOutput> {
    const project = await this.store.resolveProject(input.projectContext);
    const ids = [...new Set(input.nodeIds)];
    const wanted = new Set(ids);
    const signal = ctx?.signal;

    const result = await this.store.withLock(project, async (graph) => {
      // The latest record of each id wins (a node deleted, restored and deleted again).
      const records = new Map<string, DeletedNodeRecord>();
      await graph.scanDeleted((r) => {
        if (wanted.has(r.nodeId)) records.set(r.nodeId, r);
      }, signal);
      const missing = ids.filter((id) => !records.has(id));
      if (missing.length) {
        throw new NotFoundError(
          'deleted knowledge node',
          missing.join(', '),
          `no deleted record for node(s) ${missing.join(', ')} in project '${project}'; nothing was restored`,
        );
      }
      const again = await graph.findByIds(wanted, signal);
      if (again.size) {
        throw new AlreadyExistsError('knowledge node', [...again.keys()].join(', '), `in project '${project}' again; nothing was restored`);
      }
      const outside = new Set<string>();
      for (const r of records.values()) for (const p of r.nodeData.parents) if (!wanted.has(p)) outside.add(p);
      const present = await graph.findByIds(outside, signal);

      const dropped: DroppedParents[] = [];
      const nodes = parentsFirst(ids.map((id) => records.get(id)!.nodeData)).map((node) => {
        const gone = node.parents.filter((p) => !wanted.has(p) && !present.has(p));
        if (!gone.length) return node;
        dropped.push({ nodeId: node.id, parents: gone });
        return { ...node, parents: node.parents.filter((p) => !gone.includes(p)) };
      });
      // Marker, graph append, records removed, marker removed: interrupted after the append, the next write removes
      // the records (the restore completes); before it, nothing changed.
      await graph.beginTwoFileChange('restore', ids);
      await graph.append(nodes);
      await graph.removeDeleted(wanted);
      await graph.endTwoFileChange();
      const summaries = await this.restoreSummaries(graph, wanted, signal);
      return { restored: nodes.map((n) => n.id), dropped, summaries };
    });

    this.logger.info('knowledge nodes restored', {
      project,
      nodeIds: result.restored,
      droppedParents: result.dropped,
      summariesRestored: result.summaries,
    });
    return {
      success: true,
      restoredNodeIds: result.restored,
      droppedParents: result.dropped,
      restoredSummaryIds: result.summaries,
      warnings: result.dropped.map((d) => `Node ${d.nodeId}: parent(s) ${d.parents.join(', ')} no longer exist and were dropped`),
    };
  }

  /**
   * Summaries recalculated when these nodes were deleted get their previous text and segment back once every node
   * that deletion removed from them exists again (see restoredSummary). One streaming pass finds them (prefiltered
   * on the restored ids); a rebuild rewrites only them.
   */
  private async restoreSummaries(graph: KnowledgeGraphWriter, restored: ReadonlySet<string>, signal?: AbortSignal): Promise<string[]> {
    const waiting: StoredKnowledgeNode[] = [];
    await graph.scan((node) => summaryAwaits(node, restored) && void waiting.push(node), { mentioning: restored, signal });
    if (!waiting.length) return [];
    const needed = new Set<string>();
    for (const s of waiting) for (const v of s.summaryHistory ?? []) for (const id of v.deletedNodeIds) if (!restored.has(id)) needed.add(id);
    const present = await graph.findByIds(needed, signal);
    const exists = (id: string) => restored.has(id) || present.has(id);
    const changed = new Set(waiting.map((s) => s.id));
    const done: string[] = [];
    await graph.rebuild((node) => {
      if (!changed.has(node.id)) return undefined;
      const back = restoredSummary(node, exists);
      if (back) done.push(node.id);
      return back;
    });
    return done;
  }
}

/** Orders nodes so each comes after its parents among them (they formed a DAG when stored); input order otherwise. */
function parentsFirst(nodes: StoredKnowledgeNode[]): StoredKnowledgeNode[] {
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
