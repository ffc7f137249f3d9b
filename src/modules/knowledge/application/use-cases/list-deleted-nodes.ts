import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { projectIdFromContext, type DeletedNodeRecord } from '../../domain';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { KnowledgeStore } from '../ports/knowledge-store';

/** Records shown at most (the newest); the deleted file itself is never trimmed. */
export const DELETED_LIST_MAX = 500;

/** A project's soft-deleted nodes with their reasons, newest deletion first (one streaming pass). */
@injectable()
export class ListDeletedNodes {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: { projectContext: string }, ctx?: CallContext): Promise<{ project: string; records: DeletedNodeRecord[]; total: number }> {
    const project = projectIdFromContext(input.projectContext);
    const kept: DeletedNodeRecord[] = [];
    let total = 0;
    await this.store.reader(project).scanDeleted((r) => {
      total++;
      kept.push(r);
      // Keep a bounded window of the newest records (the file is in deletion order).
      if (kept.length > DELETED_LIST_MAX * 2) kept.splice(0, kept.length - DELETED_LIST_MAX);
    }, ctx?.signal);
    return { project, records: kept.slice(-DELETED_LIST_MAX).reverse(), total };
  }
}
