import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import type { Logger } from '../../../../kernel/logger';
import { AlreadyExistsError, NotFoundError } from '../../../../kernel/errors';
import { projectIdFromContext, type DeletedNodeRecord, type StoredKnowledgeNode } from '../../domain';

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
  warnings: string[];
}

/**
 * `restore_nodes`: puts soft-deleted nodes back (appended to the graph, parents before children) and removes their
 * records from the deleted file, all under the project lock. Ids without a deletion record, or that exist in the
 * graph again, are errors naming them and nothing is restored. Parents that no longer exist are dropped and reported.
 * The graph is appended first, so a crash in between leaves the node restored and its record still present (a second
 * restore then says the id exists) — never a node lost.
 */
@injectable()
export class RestoreNodes {
  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: RestoreNodesInput, ctx?: CallContext): Promise<RestoreNodesOutput> {
    const project = projectIdFromContext(input.projectContext);
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
      await graph.append(nodes);
      await graph.removeDeleted(wanted);
      return { restored: nodes.map((n) => n.id), dropped };
    });

    this.logger.info('knowledge nodes restored', { project, nodeIds: result.restored, droppedParents: result.dropped });
    return {
      success: true,
      restoredNodeIds: result.restored,
      droppedParents: result.dropped,
      warnings: result.dropped.map((d) => `Node ${d.nodeId}: parent(s) ${d.parents.join(', ')} no longer exist and were dropped`),
    };
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
