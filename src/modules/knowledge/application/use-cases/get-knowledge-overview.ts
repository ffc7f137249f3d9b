import { inject, injectable } from 'tsyringe';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { NotFoundError } from '../../../../kernel/errors';
import { resolveInReach } from '../services/knowledge-reach';
import { toBrief, type KnowledgeNodeBrief, type KnowledgeRole } from '../../domain';

/** What the `workgraph://knowledge/<project>` resource answers. */
export interface KnowledgeOverview {
  project: string;
  nodes: number;
  deleted: number;
  roles: Record<KnowledgeRole, number>;
  /** The most recent nodes, newest first, in list_nodes' brief shape. */
  recent: KnowledgeNodeBrief[];
  malformedLines: number;
}

export const OVERVIEW_RECENT = 10;

/** A project's knowledge graph at a glance: counts, roles and the most recent nodes (the MCP resource). */
@injectable()
export class GetKnowledgeOverview {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: { project: string }, ctx?: CallContext): Promise<KnowledgeOverview> {
    const { id, shown: project } = await resolveInReach(this.store, input.project, ctx, { field: 'project' });
    const reader = this.store.reader(id);
    const stats = await reader.stats(ctx?.signal);
    if (!stats) throw new NotFoundError('knowledge project', project, `knowledge project '${project}' has no graph`);
    const page = await reader.page({ limit: OVERVIEW_RECENT, signal: ctx?.signal });
    return { project, nodes: stats.nodes, deleted: stats.deleted, roles: stats.roles, recent: page.nodes.map(toBrief), malformedLines: stats.malformedCount };
  }
}
