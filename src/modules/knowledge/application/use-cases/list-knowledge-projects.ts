import { inject, injectable } from 'tsyringe';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { KnowledgeProjectInfo, KnowledgeStore } from '../ports/knowledge-store';

/** Every project with a knowledge graph: sizes, last change and backup count (no graph is read). */
@injectable()
export class ListKnowledgeProjects {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(): Promise<{ projects: KnowledgeProjectInfo[] }> {
    return { projects: await this.store.listProjects() };
  }
}
