import { KnowledgeTokens } from './application/knowledge.tokens';
import { KNOWLEDGE_ROLES, KNOWLEDGE_VERDICTS } from './domain/knowledge-node';
import type { JsonSchema, ToolDefinition } from '../../kernel/tools/tool-definition';

/** Node ids: safe, greppable tokens (generated ids are UUIDs). Same pattern as spec/knowledge-node.schema.json. */
const nodeId: JsonSchema = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$', description: 'A node id' };
const nodeIds: JsonSchema = { type: 'array', items: nodeId, minItems: 1, maxItems: 10_000 };
const projectContext: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description:
    "The project's folder path (or name): one folder is one project, its last segment the readable id. Windows paths are understood.",
};
const role: JsonSchema = { type: 'string', enum: [...KNOWLEDGE_ROLES] };
const tags: JsonSchema = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 100 };
const artifact: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    path: { type: 'string' },
    uri: { type: 'string' },
    contentType: { type: 'string' },
  },
  additionalProperties: false,
};

const nodeFields = {
  thought: { type: 'string', minLength: 1, maxLength: 200_000 },
  role,
  tags,
  artifacts: { type: 'array', items: artifact, maxItems: 100 },
  parents: { type: 'array', items: nodeId, maxItems: 1000 },
  verdict: { type: 'string', enum: [...KNOWLEDGE_VERDICTS] },
  verdictReason: { type: 'string' },
  verdictReferences: { type: 'array', items: { type: 'string' } },
  target: nodeId,
  summarizedSegment: { type: 'array', items: nodeId, maxItems: 10_000 },
} satisfies Record<string, JsonSchema>;

/** A node as answered (stored fields plus derived `children`). */
const nodeOut: JsonSchema = {
  type: 'object',
  required: ['id', 'project', 'projectContext', 'thought', 'role', 'tags', 'artifacts', 'parents', 'children', 'createdAt'],
  properties: {
    id: { type: 'string' },
    project: { type: 'string' },
    projectContext: { type: 'string' },
    ...nodeFields,
    thought: { type: 'string' },
    children: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'string' },
    summaryHistory: {
      type: 'array',
      description: 'Summaries only: the versions replaced by recalculations after deletions, oldest first; restoring the deleted nodes brings the newest back',
      items: {
        type: 'object',
        required: ['thought', 'summarizedSegment', 'deletedNodeIds', 'replacedAt'],
        properties: {
          thought: { type: 'string' },
          summarizedSegment: { type: 'array', items: { type: 'string' } },
          deletedNodeIds: { type: 'array', items: { type: 'string' } },
          replacedAt: { type: 'string' },
        },
      },
    },
  },
};

const briefOut: JsonSchema = {
  type: 'object',
  required: ['id', 'role', 'tags', 'createdAt', 'thought'],
  properties: {
    id: { type: 'string' },
    role,
    tags: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'string' },
    thought: { type: 'string', description: 'First line of the thought' },
  },
};

const dependentOut: JsonSchema = {
  type: 'object',
  required: ['nodeId', 'thought', 'tags', 'role', 'createdAt'],
  properties: {
    nodeId: { type: 'string' },
    thought: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    role,
    createdAt: { type: 'string' },
  },
};

const summaryOut: JsonSchema = {
  type: 'object',
  required: ['summaryId', 'status', 'method', 'remainingNodeIds', 'message'],
  properties: {
    summaryId: { type: 'string' },
    status: { type: 'string', enum: ['recalculated', 'empty', 'conflict', 'failed', 'not_recalculated'] },
    method: { type: ['string', 'null'], enum: ['sampling', 'extractive', null] },
    remainingNodeIds: { type: 'array', items: { type: 'string' } },
    message: { type: 'string' },
  },
};

/** The knowledge module's MCP tools. */
export const knowledgeTools: ToolDefinition[] = [
  {
    name: 'add_nodes',
    title: 'Add knowledge nodes',
    description:
      "Appends thoughts (role actor), reviews (critic) or summaries to the project's knowledge graph. Ids are generated when absent. " +
      'Every parent must exist in the project or come earlier in the same call; nothing is added when a check fails.',
    inputSchema: {
      type: 'object',
      required: ['projectContext', 'nodes'],
      properties: {
        projectContext,
        nodes: {
          type: 'array',
          minItems: 1,
          maxItems: 1000,
          items: {
            type: 'object',
            required: ['thought', 'role'],
            properties: { id: nodeId, ...nodeFields },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['project', 'ids'],
      properties: { project: { type: 'string' }, ids: { type: 'array', items: { type: 'string' } } },
    },
    annotations: { title: 'Add knowledge nodes', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: KnowledgeTokens.AddKnowledgeNodes,
    module: 'knowledge',
  },
  {
    name: 'list_nodes',
    title: 'List knowledge nodes',
    description:
      'Brief entries (id, role, tags, createdAt, first line of thought), newest first, filtered by tags (all must match) and role. ' +
      'Pass nextCursor back as cursor for older entries.',
    inputSchema: {
      type: 'object',
      required: ['projectContext'],
      properties: {
        projectContext,
        tags,
        role,
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
        cursor: { type: 'string', minLength: 1, maxLength: 200 },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['project', 'nodes', 'nextCursor', 'malformedLines'],
      properties: {
        project: { type: 'string' },
        nodes: { type: 'array', items: briefOut },
        nextCursor: { type: ['string', 'null'] },
        malformedLines: { type: 'integer' },
      },
    },
    annotations: { title: 'List knowledge nodes', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: KnowledgeTokens.ListKnowledgeNodes,
    module: 'knowledge',
  },
  {
    name: 'get_node',
    title: 'Get a knowledge node',
    description: 'One node of the project with all its fields, and its children (the nodes that name it as a parent).',
    inputSchema: {
      type: 'object',
      required: ['projectContext', 'id'],
      properties: { projectContext, id: nodeId },
      additionalProperties: false,
    },
    outputSchema: { type: 'object', required: ['project', 'node'], properties: { project: { type: 'string' }, node: nodeOut } },
    annotations: { title: 'Get a knowledge node', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: KnowledgeTokens.GetKnowledgeNode,
    module: 'knowledge',
  },
  {
    name: 'delete_nodes',
    title: 'Delete knowledge nodes',
    description:
      'Soft-delete nodes. If others descend from them nothing is deleted: success is false and dependentNodes lists them; call again including them. On success a backup is made, the nodes go to the deleted file (restore_nodes brings them back) and are unlinked; recalculateSummaries rewrites summaries that covered them.',
    inputSchema: {
      type: 'object',
      required: ['nodeIds', 'projectContext'],
      properties: {
        nodeIds: { ...nodeIds, items: { ...nodeId, minLength: 1 } },
        projectContext,
        reason: { type: 'string', maxLength: 2000 },
        recalculateSummaries: { type: 'boolean', default: false },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['success', 'deletedNodeIds', 'dependentNodes', 'warnings', 'backupPath', 'summaries', 'message'],
      properties: {
        success: { type: 'boolean' },
        deletedNodeIds: { type: 'array', items: { type: 'string' } },
        dependentNodes: { type: 'array', items: dependentOut },
        warnings: { type: 'array', items: { type: 'string' } },
        backupPath: { type: ['string', 'null'] },
        summaries: { type: 'array', items: summaryOut },
        message: { type: 'string' },
      },
    },
    annotations: { title: 'Delete knowledge nodes', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: KnowledgeTokens.DeleteKnowledgeNodes,
    module: 'knowledge',
  },
  {
    name: 'restore_nodes',
    title: 'Restore deleted knowledge nodes',
    description:
      'Puts soft-deleted nodes back and removes their deletion records. Refuses ids that exist in the graph again; ' +
      'parents that no longer exist are dropped from the restored nodes and reported.',
    inputSchema: {
      type: 'object',
      required: ['nodeIds', 'projectContext'],
      properties: { nodeIds, projectContext },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['success', 'restoredNodeIds', 'droppedParents', 'restoredSummaryIds', 'warnings'],
      properties: {
        success: { type: 'boolean' },
        restoredNodeIds: { type: 'array', items: { type: 'string' } },
        droppedParents: {
          type: 'array',
          items: {
            type: 'object',
            required: ['nodeId', 'parents'],
            properties: { nodeId: { type: 'string' }, parents: { type: 'array', items: { type: 'string' } } },
          },
        },
        restoredSummaryIds: {
          type: 'array',
          items: { type: 'string' },
          description: 'Summaries recalculated when these nodes were deleted that got their previous text and segment back',
        },
        warnings: { type: 'array', items: { type: 'string' } },
      },
    },
    annotations: { title: 'Restore deleted knowledge nodes', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: KnowledgeTokens.RestoreKnowledgeNodes,
    module: 'knowledge',
  },
];
