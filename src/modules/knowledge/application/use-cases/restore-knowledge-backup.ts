import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { Logger } from '../../../../kernel/logger';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { restoreIntoGraph, type DroppedParents } from '../services/restore-into-graph';
import { KnowledgeMessages } from '../services/knowledge-messages';

export interface RestoreKnowledgeBackupOutput {
  project: string;
  backupId: string;
  /** Nodes the backup holds. */
  backupNodes: number;
  /** The backup's nodes that were missing from the graph and are back now (as the newest). */
  restoredNodeIds: string[];
  /** Nodes of the backup that are in the graph already (left as they are). */
  alreadyPresent: number;
  droppedParents: DroppedParents[];
  restoredSummaryIds: string[];
  message: string;
}

/**
 * `workgraph knowledge restore-backup ID`: brings back every node a backup holds that the graph lacks now — what the
 * delete that took the backup removed (and, for a file backup, anything deleted since that it also held). Nodes in
 * the graph are never overwritten and nothing added since is lost; their deletion records go, as with restore_nodes.
 */
@injectable()
export class RestoreKnowledgeBackup {
  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {}

  async execute(input: { backupId: string }, ctx?: CallContext): Promise<RestoreKnowledgeBackupOutput> {
    const { project, backup, nodes } = await this.store.readBackup(input.backupId);
    const signal = ctx?.signal;
    const result = await this.store.withLock(project, async (graph) => {
      const present = await graph.findByIds(new Set(nodes.map((n) => n.id)), signal);
      const missing = nodes.filter((n) => !present.has(n.id));
      const restored = missing.length ? await restoreIntoGraph(graph, missing, signal) : { restored: [], dropped: [], summaries: [] };
      return { ...restored, alreadyPresent: present.size };
    });
    this.logger.info('knowledge backup restored', { project, backupId: backup.id, restored: result.restored.length, alreadyPresent: result.alreadyPresent });
    return {
      project,
      backupId: backup.id,
      backupNodes: nodes.length,
      restoredNodeIds: result.restored,
      alreadyPresent: result.alreadyPresent,
      droppedParents: result.dropped,
      restoredSummaryIds: result.summaries,
      message: KnowledgeMessages.backupRestored(backup.id, project, result.restored.length, result.alreadyPresent),
    };
  }
}
