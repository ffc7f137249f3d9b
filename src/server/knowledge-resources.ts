import { KnowledgeTokens, type GetNodeOutput, type KnowledgeOverview, type KnowledgeProjectInfo } from '../modules/knowledge';
import type { ChangeTarget } from '../kernel/change-events';

/**
 * The knowledge module's MCP resources: `workgraph://knowledge/<project>` (counts, roles, the most recent nodes) and
 * `workgraph://knowledge/<project>/nodes/<id>` (the node with its neighbours, as get_node answers with
 * `neighbours: true`). Both are updated — notifications/resources/updated for subscribers — on every change to the
 * project, through the change-event port (the same path as sessions and task graphs).
 */
const PROJECT_URI = /^workgraph:\/\/knowledge\/([a-z0-9][a-z0-9-]*)$/;
const NODE_URI = /^workgraph:\/\/knowledge\/([a-z0-9][a-z0-9-]*)\/nodes\/([A-Za-z0-9][A-Za-z0-9_.:-]{0,127})$/;

export type KnowledgeCall = <O>(token: symbol, input: unknown) => Promise<O>;

export const knowledgeResourceTemplates = [
  { uriTemplate: 'workgraph://knowledge/{project}', name: 'knowledge graph', description: "A project's knowledge graph: node counts by role, deletions, the most recent nodes (JSON).", mimeType: 'application/json' },
  { uriTemplate: 'workgraph://knowledge/{project}/nodes/{id}', name: 'knowledge node', description: 'One knowledge node with its parents, children and covering summaries (JSON).', mimeType: 'application/json' },
];

export async function listKnowledgeResources(call: KnowledgeCall) {
  const { projects } = await call<{ projects: KnowledgeProjectInfo[] }>(KnowledgeTokens.ListKnowledgeProjects, {});
  return projects.map((p) => ({
    uri: `workgraph://knowledge/${p.project}`,
    name: `knowledge ${p.project}`,
    title: `${p.project}: knowledge graph`,
    description: `Counts, roles and the most recent nodes of project ${p.project}'s knowledge graph.`,
    mimeType: 'application/json',
  }));
}

/** The resource's contents, or undefined when the URI is not a knowledge one. */
export async function readKnowledgeResource(uri: string, call: KnowledgeCall) {
  const project = PROJECT_URI.exec(uri);
  if (project) {
    const overview = await call<KnowledgeOverview>(KnowledgeTokens.GetKnowledgeOverview, { project: project[1] });
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(overview) }] };
  }
  const node = NODE_URI.exec(uri);
  if (node) {
    const out = await call<GetNodeOutput>(KnowledgeTokens.GetKnowledgeNode, { projectContext: node[1], id: node[2], neighbours: true });
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(out) }] };
  }
  return undefined;
}

/** The change target of a knowledge resource URI (its project), or undefined. */
export function knowledgeTarget(uri: string): ChangeTarget | undefined {
  const m = PROJECT_URI.exec(uri) ?? NODE_URI.exec(uri);
  return m ? { kind: 'knowledge', project: m[1], id: m[1] } : undefined;
}

/** The project a knowledge resource URI belongs to (for matching change events), or undefined. */
export function knowledgeProjectOf(uri: string): string | undefined {
  return (PROJECT_URI.exec(uri) ?? NODE_URI.exec(uri))?.[1];
}
