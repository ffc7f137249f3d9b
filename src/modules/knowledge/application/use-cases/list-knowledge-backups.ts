import { inject, injectable } from 'tsyringe';
import { projectIdFromContext } from '../../domain';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { KnowledgeBackupInfo, KnowledgeStore } from '../ports/knowledge-store';

/** A project's knowledge backups (taken before every delete), newest first. */
@injectable()
export class ListKnowledgeBackups {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: { projectContext: string }): Promise<{ project: string; backups: KnowledgeBackupInfo[] }> {
    const project = projectIdFromContext(input.projectContext);
    return { project, backups: await this.store.listBackups(project) };
  }
}
