import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { Clock } from '../../../../kernel/clock';
import type { KnowledgeStore, PassReport } from '../ports/knowledge-store';
import type { Logger } from '../../../../kernel/logger';
import { NotFoundError } from '../../../../kernel/errors';
import {
  DescendantCollector,
  dependentCountsPerRoot,
  summarizesAny,
  toDependentInfo,
  type DeletedNodeRecord,
  type DependentNodeInfo,
  type StoredKnowledgeNode,
} from '../../domain';
import { RecalculateSummaries, type SummaryRecalculation } from './recalculate-summaries';

export interface DeleteNodesInput {
  nodeIds: string[];
  projectContext: string;
  reason?: string;
  /** Recalculate the summaries whose segment names a deleted node. Default false. */
  recalculateSummaries?: boolean;
}

export interface DeleteNodesOutput {
  success: boolean;
  deletedNodeIds: string[];
  dependentNodes: DependentNodeInfo[];
  warnings: string[];
  backupPath: string | null;
  /** The affected summaries and what became of them (recalculated and how, left empty, lost a race). */
  summaries: SummaryRecalculation[];
  /** One sentence saying what happened and what to do next. */
  message: string;
}

/**
 * `delete_nodes`: soft delete with dependents confirmation (DESIGN.md §2, knowledge module).
 *
 * Under the project lock: streaming passes find the nodes and their dependents (every node outside the set that
 * descends from it through `parents`). Unknown ids → NotFoundError, nothing deleted. Dependents → `success: false`
 * listing them, nothing deleted. Otherwise: backup, deletion records appended, graph rebuilt without the nodes and
 * without their ids in other nodes' `parents`. Summary recalculation (when asked) runs after the lock is released.
 * Memory holds only the ids being deleted, their dependents and the affected summaries.
 */
@injectable()
export class DeleteNodes {
  private readonly recalculator: RecalculateSummaries;

  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {
    this.recalculator = new RecalculateSummaries(store, logger, clock);
  }

  async execute(input: DeleteNodesInput, ctx?: CallContext): Promise<DeleteNodesOutput> {
    const project = await this.store.resolveProject(input.projectContext);
    const ids = [...new Set(input.nodeIds)];
    const reason = input.reason ?? null;
    const signal = ctx?.signal;

    const outcome = await this.store.withLock(project, async (graph) => {
      const collector = new DescendantCollector(ids);
      const targets = new Map<string, StoredKnowledgeNode>();
      const dependents = new Map<string, StoredKnowledgeNode>();
      do {
        await graph.scan(
          (node) => {
            if (collector.isRoot(node.id)) {
              if (!targets.has(node.id)) targets.set(node.id, node);
            } else if (collector.visit(node.id, node.parents)) dependents.set(node.id, node);
          },
          { mentioning: collector.watched, signal },
        );
      } while (collector.endPass());

      const unknown = ids.filter((id) => !targets.has(id));
      if (unknown.length) {
        throw new NotFoundError(
          'knowledge node',
          unknown.join(', '),
          `knowledge node(s) not found in project '${project}': ${unknown.join(', ')}; nothing was deleted`,
        );
      }
      if (dependents.size) return { kind: 'dependents' as const, dependents };

      // From here on the graph changes: no cancellation until it is consistent again. Order: marker, backup,
      // records, rebuild, marker removed. Interrupted anywhere before the rebuild's rename, the node is still in the
      // graph and the next write drops its record (the delete did not happen); after it, the delete is complete.
      await graph.beginTwoFileChange('delete', ids);
      const backup = await graph.backup();
      this.logger.info('knowledge backup created', { project, backupPath: backup.path, pruned: backup.pruned.length });
      const timestamp = new Date(this.clock.now()).toISOString();
      const records: DeletedNodeRecord[] = ids.map((id) => ({ nodeId: id, project, reason, timestamp, nodeData: targets.get(id)! }));
      await graph.appendDeleted(records);
      const deleted = new Set(ids);
      const affected: StoredKnowledgeNode[] = [];
      let report: PassReport;
      try {
        report = await graph.rebuild((node) => {
          if (deleted.has(node.id)) return null;
          const changed = node.parents.some((p) => deleted.has(p))
            ? { ...node, parents: node.parents.filter((p) => !deleted.has(p)) }
            : undefined;
          if (summarizesAny(node, deleted)) affected.push(changed ?? node);
          return changed;
        });
      } catch (e) {
        // The graph is unchanged (the rebuild commits by rename or not at all): take the records back. If even that
        // fails, the marker stays and the next write under the lock does it.
        await graph
          .removeDeleted(deleted)
          .then(() => graph.endTwoFileChange())
          .catch(() => undefined);
        throw e;
      }
      await graph.endTwoFileChange();
      return { kind: 'deleted' as const, backupPath: backup.path, report, affected };
    });

    if (outcome.kind === 'dependents') {
      const counts = dependentCountsPerRoot(ids, new Map([...outcome.dependents].map(([id, n]) => [id, n.parents])));
      const warnings = ids.filter((id) => (counts.get(id) ?? 0) > 0).map((id) => `Node ${id} has ${counts.get(id)} dependent node(s)`);
      this.logger.info('knowledge delete refused: dependents found', {
        project,
        nodeIds: ids,
        dependents: [...outcome.dependents.keys()].slice(0, 100),
        dependentCount: outcome.dependents.size,
        reason,
      });
      return {
        success: false,
        deletedNodeIds: [],
        dependentNodes: [...outcome.dependents.values()].map(toDependentInfo),
        warnings,
        backupPath: null,
        summaries: [],
        message:
          `Nothing was deleted: ${outcome.dependents.size} node(s) depend on the nodes to delete. ` +
          'Call delete_nodes again with the dependent node ids included to delete them all.',
      };
    }

    const { report, affected, backupPath } = outcome;
    this.logger.info('knowledge nodes deleted', { project, nodeIds: ids, reason, backupPath });
    const warnings = malformedWarnings(report, this.store.graphFile(project));
    if (report.malformedCount) this.logger.warn('knowledge graph has malformed lines (kept)', { project, count: report.malformedCount });

    let summaries: SummaryRecalculation[] = [];
    if (affected.length && input.recalculateSummaries) {
      summaries = await this.recalculator.execute({ project, deleted: new Set(ids), summaries: affected }, ctx);
      for (const s of summaries) if (s.status !== 'recalculated') warnings.push(s.message);
    } else if (affected.length) {
      summaries = affected.map((s) => ({
        summaryId: s.id,
        status: 'not_recalculated' as const,
        method: null,
        remainingNodeIds: (s.summarizedSegment ?? []).filter((id) => !ids.includes(id)),
        message: `Summary ${s.id} summarizes deleted node(s); pass recalculateSummaries: true to recalculate it`,
      }));
      for (const s of summaries) warnings.push(s.message);
    }
    return {
      success: true,
      deletedNodeIds: ids,
      dependentNodes: [],
      warnings,
      backupPath,
      summaries,
      message: `Deleted ${ids.length} node(s); restore_nodes brings them back.`,
    };
  }
}

function malformedWarnings(report: PassReport, file: string): string[] {
  const out = report.malformed.map((m) => `Line ${m.line} of ${file} is malformed and was kept as it is: ${m.excerpt}`);
  if (report.malformedCount > report.malformed.length) {
    out.push(`${report.malformedCount - report.malformed.length} more malformed line(s) in ${file} were kept as they are`);
  }
  return out;
}
