import { inject, injectable } from 'tsyringe';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { NotFoundError } from '../../../../kernel/errors';
import { withChildren, type KnowledgeNode, type StoredKnowledgeNode } from '../../domain';

export interface GetNodeInput {
  projectContext: string;
  id: string;
}

export interface GetNodeOutput {
  project: string;
  node: KnowledgeNode;
}

/** `get_node`: one node with its `children` derived from the other nodes' `parents` (one streaming pass). */
@injectable()
export class GetNode {
  constructor(@inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore) {}

  async execute(input: GetNodeInput, ctx?: CallContext): Promise<GetNodeOutput> {
    const project = await this.store.resolveProject(input.projectContext);
    const reader = this.store.reader(project);
    let found: StoredKnowledgeNode | undefined;
    const children: string[] = [];
    await reader.scan(
      (node) => {
        if (node.id === input.id) found = node;
        else if (node.parents.includes(input.id)) children.push(node.id);
      },
      { mentioning: new Set([input.id]), signal: ctx?.signal },
    );
    if (!found) {
      let deleted = false;
      await reader.scanDeleted((r) => {
        if (r.nodeId === input.id) deleted = true;
      }, ctx?.signal);
      throw new NotFoundError(
        'knowledge node',
        input.id,
        `knowledge node '${input.id}' not found in project '${project}'` +
          (deleted ? ' (it was deleted; restore_nodes brings it back)' : ''),
      );
    }
    return { project, node: withChildren(found, children) };
  }
}
