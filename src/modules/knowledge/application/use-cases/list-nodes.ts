import { inject, injectable } from 'tsyringe';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { toBrief, type KnowledgeNodeBrief, type KnowledgeRole } from '../../domain';

/** Default page size of list_nodes, and its maximum. */
export const LIST_NODES_DEFAULT_LIMIT = 20;
export const LIST_NODES_MAX_LIMIT = 200;

export interface ListNodesInput {
  projectContext: string;
  /** Only nodes carrying every one of these tags. */
  tags?: string[];
  role?: KnowledgeRole;
  /** Only nodes whose thought contains this text (case-insensitive). Not part of the list_nodes tool (the dashboard's filter). */
  text?: string;
  /** Default 20, at most 200. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface ListNodesOutput {
  project: string;
  nodes: KnowledgeNodeBrief[];
  /** Pass back as `cursor` for the next (older) page; null when there is none. */
  nextCursor: string | null;
  /** Lines read for this page that are not valid nodes (kept in the file; see delete_nodes warnings). */
  malformedLines: number;
}

/** `list_nodes`: brief entries, newest first, (the first page costs the same at any graph size). */
@injectable()
export class ListNodes {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: ListNodesInput, ctx?: CallContext): Promise<ListNodesOutput> {
    const project = await this.store.resolveProject(input.projectContext);
    const limit = Math.min(Math.max(1, Math.floor(input.limit ?? LIST_NODES_DEFAULT_LIMIT)), LIST_NODES_MAX_LIMIT);
    const page = await this.store.reader(project).page({
      cursor: input.cursor,
      limit,
      role: input.role,
      tags: input.tags,
      text: input.text,
      signal: ctx?.signal,
    });
    return { project, nodes: page.nodes.map(toBrief), nextCursor: page.nextCursor, malformedLines: page.malformedCount };
  }
}
