import { KnowledgeTokens } from './application/knowledge.tokens';
import { defineTool, type ToolDefinition } from '../../kernel/tools/tool-definition';
import {
  addNodesSchemas,
  deleteNodesSchemas,
  getNodeSchemas,
  listNodesSchemas,
  restoreNodesSchemas,
  searchNodesSchemas,
} from './application/knowledge.tool-schemas';

/** The knowledge module's MCP tools. */
export const knowledgeTools: ToolDefinition[] = [
  defineTool({
    name: 'add_nodes',
    title: 'Add knowledge nodes',
    description:
      "Appends thoughts (role actor), reviews (critic) or summaries to the project's knowledge graph. Ids are generated when absent. " +
      'Every parent must exist in the project or come earlier in the same call; nothing is added when a check fails. ' +
      // The search limits (SEARCH_LIMITS; tests/unit/domain/knowledge/search-limits.test.ts checks these figures).
      'Search limits per node: 16,000 words, a word 2,000 bytes and 250 uses, 1,000,000 index bytes.',
    ...addNodesSchemas,
    annotations: { title: 'Add knowledge nodes', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: KnowledgeTokens.AddKnowledgeNodes,
    module: 'knowledge',
  }),
  defineTool({
    name: 'list_nodes',
    title: 'List knowledge nodes',
    description:
      'Brief entries (id, role, tags, createdAt, first line of thought), newest first, filtered by tags (all must match) and role. ' +
      'Pass nextCursor back as cursor for older entries.',
    ...listNodesSchemas,
    annotations: { title: 'List knowledge nodes', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: KnowledgeTokens.ListKnowledgeNodes,
    module: 'knowledge',
  }),
  defineTool({
    name: 'get_node',
    title: 'Get a knowledge node',
    description:
      'One node of the project with all its fields, and its children (the nodes that name it as a parent). ' +
      'neighbours: true adds its parents, children and the summaries covering it in brief, to walk from a search hit to its context.',
    ...getNodeSchemas,
    annotations: { title: 'Get a knowledge node', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: KnowledgeTokens.GetKnowledgeNode,
    module: 'knowledge',
  }),
  defineTool({
    name: 'search_nodes',
    title: 'Search knowledge nodes',
    description:
      'Ranked search of thoughts, tags and artifacts: brief entries with score and snippet, best first. ' +
      'Syntax: words ANDed, "phrase", -exclude, prefix*, a OR b (case, accents, word endings ignored). ' +
      'Filters: role, tags, since/until, includeDeleted; projects: [...] or "*". nextCursor pages.',
    ...searchNodesSchemas,
    annotations: { title: 'Search knowledge nodes', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: KnowledgeTokens.SearchKnowledgeNodes,
    module: 'knowledge',
    view: 'knowledge-search',
  }),
  defineTool({
    name: 'delete_nodes',
    title: 'Delete knowledge nodes',
    description:
      'Soft-delete nodes. If others descend from them nothing is deleted: success is false and dependentNodes lists them; call again including them. On success a backup is made, the nodes go to the deleted file (restore_nodes brings them back) and are unlinked; recalculateSummaries rewrites summaries that covered them.',
    ...deleteNodesSchemas,
    annotations: { title: 'Delete knowledge nodes', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: KnowledgeTokens.DeleteKnowledgeNodes,
    module: 'knowledge',
  }),
  defineTool({
    name: 'restore_nodes',
    title: 'Restore deleted knowledge nodes',
    description:
      'Puts soft-deleted nodes back and removes their deletion records. Refuses ids that exist in the graph again; ' +
      'parents that no longer exist are dropped from the restored nodes and reported.',
    ...restoreNodesSchemas,
    annotations: { title: 'Restore deleted knowledge nodes', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: KnowledgeTokens.RestoreKnowledgeNodes,
    module: 'knowledge',
  }),
];

