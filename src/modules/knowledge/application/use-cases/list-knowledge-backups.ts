import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { resolveInReach } from '../services/knowledge-reach';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { KnowledgeBackupInfo, KnowledgeStore } from '../ports/knowledge-store';

/** A project's knowledge backups (taken before every delete), newest first. */
@injectable()
export class ListKnowledgeBackups {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: { projectContext: string }, ctx?: CallContext): Promise<{ project: string; backups: KnowledgeBackupInfo[] }> {
    const { id, shown } = await resolveInReach(this.store, input.projectContext, ctx);
    return { project: shown, backups: await this.store.listBackups(id) };
  }
}
