import { inject, injectable } from 'tsyringe';
import { resolveInReach } from '../services/knowledge-reach';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { toBrief } from '../../domain';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { listNodesSchemas } from '../knowledge.tool-schemas';

/** Default page size of list_nodes, and its maximum. */
export const LIST_NODES_DEFAULT_LIMIT = 20;
export const LIST_NODES_MAX_LIMIT = 200;

/**
 * The tool's input, as its schema in knowledge.tool-schemas.ts describes it, plus `text`: only nodes whose thought
 * contains it (case-insensitive) — the dashboard's filter, not part of the list_nodes tool.
 */
export type ListNodesInput = ToolInput<typeof listNodesSchemas> & { text?: string };
/** The tool's answer, as its output schema describes it (`nextCursor`: pass it back as `cursor`; null on the last page). */
export type ListNodesOutput = ToolOutput<typeof listNodesSchemas>;

/** `list_nodes`: brief entries, newest first, (the first page costs the same at any graph size). */
@injectable()
export class ListNodes implements UseCase<ListNodesInput, ListNodesOutput> {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: ListNodesInput, ctx?: CallContext): Promise<ListNodesOutput> {
    const { id: project, shown } = await resolveInReach(this.store, input.projectContext, ctx);
    const limit = Math.min(Math.max(1, Math.floor(input.limit ?? LIST_NODES_DEFAULT_LIMIT)), LIST_NODES_MAX_LIMIT);
    const page = await this.store.reader(project).page({
      cursor: input.cursor,
      limit,
      role: input.role,
      tags: input.tags,
      text: input.text,
      signal: ctx?.signal,
    });
    return { project: shown, nodes: page.nodes.map(toBrief), nextCursor: page.nextCursor, malformedLines: page.malformedCount };
  }
}
