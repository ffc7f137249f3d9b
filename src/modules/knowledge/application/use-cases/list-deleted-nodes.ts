import { inject, injectable } from 'tsyringe';
import { resolveInReach } from '../services/knowledge-reach';
import type { CallContext } from '../../../../kernel/call-context';
import type { DeletedNodeRecord } from '../../domain';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { KnowledgeStore } from '../ports/knowledge-store';

/** Records shown at most (the newest); the records themselves are never trimmed. */
export const DELETED_LIST_MAX = 500;

/** A project's soft-deleted nodes with their reasons, newest deletion first. */
@injectable()
export class ListDeletedNodes {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: { projectContext: string }, ctx?: CallContext): Promise<{ project: string; records: DeletedNodeRecord[]; total: number }> {
    const { id: project, shown } = await resolveInReach(this.store, input.projectContext, ctx);
    const { records, total } = await this.store.reader(project).deleted({ limit: DELETED_LIST_MAX, signal: ctx?.signal });
    return { project: shown, records, total };
  }
}
