import { inject, injectable } from 'tsyringe';
import { resolveInReach } from '../services/knowledge-reach';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { restoreIntoGraph } from '../services/restore-into-graph';
import type { Logger } from '../../../../kernel/logger';
import { AlreadyExistsError, NotFoundError } from '../../../../kernel/errors';
import type { DeletedNodeRecord } from '../../domain';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { restoreNodesSchemas } from '../knowledge.tool-schemas';
import { KnowledgeMessages } from '../services/knowledge-messages';

/** The tool's input, as its schema in knowledge.tool-schemas.ts describes it. */
export type RestoreNodesInput = ToolInput<typeof restoreNodesSchemas>;

export type { DroppedParents } from '../services/restore-into-graph';

/** The tool's answer, as its output schema describes it. */
export type RestoreNodesOutput = ToolOutput<typeof restoreNodesSchemas>;

/**
 * `restore_nodes`: puts soft-deleted nodes back (as the newest, parents before children) and removes their deletion
 * records, all under the project lock (the store's restore is all or nothing: never a node lost, never one both in
 * the graph and deleted). Ids without a deletion record, or that exist in the graph again, are errors naming them and
 * nothing is restored. Parents that no longer exist are dropped and reported.
 */
@injectable()
export class RestoreNodes implements UseCase<RestoreNodesInput, RestoreNodesOutput> {
  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: RestoreNodesInput, ctx?: CallContext): Promise<RestoreNodesOutput> {
    const { id: project, shown } = await resolveInReach(this.store, input.projectContext, ctx);
    const ids = [...new Set(input.nodeIds)];
    const wanted = new Set(ids);
    const signal = ctx?.signal;

    const result = await this.store.withLock(project, async (graph) => {
      // Newest first: the latest record of each id wins (a node deleted, restored and deleted again).
      const records = new Map<string, DeletedNodeRecord>();
      for (const r of (await graph.deleted({ nodeIds: wanted, signal })).records) if (!records.has(r.nodeId)) records.set(r.nodeId, r);
      const missing = ids.filter((id) => !records.has(id));
      if (missing.length) {
        throw new NotFoundError(
          'deleted knowledge node',
          missing.join(', '),
          `no deleted record for node(s) ${missing.join(', ')} in project '${shown}'; nothing was restored`,
        );
      }
      const again = await graph.findByIds(wanted, signal);
      if (again.size) {
        throw new AlreadyExistsError('knowledge node', [...again.keys()].join(', '), `in project '${shown}' again; nothing was restored`);
      }
      return restoreIntoGraph(graph, ids.map((id) => records.get(id)!.nodeData), signal);
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
      warnings: result.dropped.map((d) => KnowledgeMessages.parentsDropped(d.nodeId, d.parents)),
    };
  }
}
