import { inject, injectable } from 'tsyringe';
import { resolveInReach } from '../services/knowledge-reach';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { NotFoundError } from '../../../../kernel/errors';
import { toBrief, withChildren } from '../../domain';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { getNodeSchemas } from '../knowledge.tool-schemas';

/** The tool's input, as its schema in knowledge.tool-schemas.ts describes it. */
export type GetNodeInput = ToolInput<typeof getNodeSchemas>;
/** The tool's answer, as its output schema describes it (the node is `nodeOut`). */
export type GetNodeOutput = ToolOutput<typeof getNodeSchemas>;

/** `get_node`: one node with its `children` derived from the other nodes' `parents`; with `neighbours`, its context in brief. */
@injectable()
export class GetNode implements UseCase<GetNodeInput, GetNodeOutput> {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: GetNodeInput, ctx?: CallContext): Promise<GetNodeOutput> {
    const { id: project, shown } = await resolveInReach(this.store, input.projectContext, ctx);
    const reader = this.store.reader(project);
    const found = await reader.get(input.id, ctx?.signal);
    if (!found) {
      const deleted = (await reader.deleted({ nodeIds: new Set([input.id]), limit: 1, signal: ctx?.signal })).total > 0;
      throw new NotFoundError(
        'knowledge node',
        input.id,
        `knowledge node '${input.id}' not found in project '${shown}'` +
          (deleted ? ' (it was deleted; restore_nodes brings it back)' : ''),
      );
    }
    const node = withChildren(found.node, found.children);
    if (!input.neighbours) return { project: shown, node };
    // Parents and children in the order the node lists them / the graph holds them; summaries newest first.
    const linked = await reader.findByIds(new Set([...found.node.parents, ...found.children]), ctx?.signal);
    const briefs = (ids: readonly string[]) => ids.flatMap((id) => (linked.has(id) ? [toBrief(linked.get(id)!)] : []));
    const summaries = (await reader.findSummariesMentioning(new Set([input.id]), ctx?.signal))
      .filter((s) => s.id !== input.id && (s.summarizedSegment ?? []).includes(input.id))
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
      .map(toBrief);
    return { project: shown, node, neighbours: { parents: briefs(found.node.parents), children: briefs(found.children), summaries } };
  }
}
