import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { KnowledgeTokens } from '../knowledge.tokens';
import { projectInReach } from '../services/knowledge-reach';
import type { KnowledgeProjectInfo, KnowledgeStore } from '../ports/knowledge-store';

/**
 * Every project with a knowledge graph within the caller's reach (services/knowledge-reach.ts): sizes, last change and
 * backup count (no graph is read).
 */
@injectable()
export class ListKnowledgeProjects {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(_input?: unknown, ctx?: CallContext): Promise<{ projects: KnowledgeProjectInfo[] }> {
    const out: KnowledgeProjectInfo[] = [];
    for (const p of await this.store.listProjects()) if (await projectInReach(this.store, p.project, ctx)) out.push(p);
    return { projects: out };
  }
}
