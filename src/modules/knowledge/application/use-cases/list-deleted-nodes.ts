import { inject, injectable } from 'tsyringe';
import { requireContextInReach } from '../services/knowledge-reach';
import type { CallContext } from '../../../../kernel/call-context';
import { projectIdFromContext, type DeletedNodeRecord } from '../../domain';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { KnowledgeStore } from '../ports/knowledge-store';

/** Records shown at most (the newest); the records themselves are never trimmed. */
export const DELETED_LIST_MAX = 500;

/** A project's soft-deleted nodes with their reasons, newest deletion first. */
@injectable()
export class ListDeletedNodes {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: { projectContext: string }, ctx?: CallContext): Promise<{ project: string; records: DeletedNodeRecord[]; total: number }> {
    requireContextInReach(input.projectContext, ctx);
    const project = projectIdFromContext(input.projectContext);
    const { records, total } = await this.store.reader(project).deleted({ limit: DELETED_LIST_MAX, signal: ctx?.signal });
    return { project, records, total };
  }
}
