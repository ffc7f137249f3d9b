import { inject, injectable } from 'tsyringe';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { NotFoundError } from '../../../../kernel/errors';
import { withChildren, type KnowledgeNode } from '../../domain';

export interface GetNodeInput {
  projectContext: string;
  id: string;
}

export interface GetNodeOutput {
  project: string;
  node: KnowledgeNode;
}

/** `get_node`: one node with its `children` derived from the other nodes' `parents` . */
@injectable()
export class GetNode {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: GetNodeInput, ctx?: CallContext): Promise<GetNodeOutput> {
    const project = await this.store.resolveProject(input.projectContext);
    const reader = this.store.reader(project);
    const found = await reader.get(input.id, ctx?.signal);
    if (!found) {
      const deleted = (await reader.deleted({ nodeIds: new Set([input.id]), limit: 1, signal: ctx?.signal })).total > 0;
      throw new NotFoundError(
        'knowledge node',
        input.id,
        `knowledge node '${input.id}' not found in project '${project}'` +
          (deleted ? ' (it was deleted; restore_nodes brings it back)' : ''),
      );
    }
    return { project, node: withChildren(found.node, found.children) };
  }
}
