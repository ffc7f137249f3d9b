import { KNOWLEDGE_ROLES, KNOWLEDGE_VERDICTS } from '../domain/knowledge-node';
import { toolSchemas } from '../../../kernel/tools/tool-schema';

/**
 * The input and output schemas of the knowledge module's tools, each written once: knowledge.tools.ts declares the
 * tools with them, and tests/unit/spec/entity-schemas.test.ts checks spec/knowledge-node.schema.json's node against
 * `nodeOut`.
 */

/** Node ids: safe, greppable tokens (generated ids are UUIDs). Same pattern as spec/knowledge-node.schema.json. */
const nodeId = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$', description: 'A node id' } as const;

const nodeIds = { type: 'array', items: nodeId, minItems: 1, maxItems: 10_000 } as const;

const projectContext = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description:
    "The project's folder path (or name): one folder is one project, its last segment the readable id. Windows paths are understood.",
} as const;

const role = { type: 'string', enum: [...KNOWLEDGE_ROLES] } as const;

const tags = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 100 } as const;

const artifact = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    path: { type: 'string' },
    uri: { type: 'string' },
    contentType: { type: 'string' },
  },
  additionalProperties: false,
} as const;

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
} as const;

/** A node as answered (stored fields plus derived `children`). */
export const nodeOut = {
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
    actor: {
      type: 'object',
      description: "Who added it: the identity's name and the agent's client name",
      required: ['name'],
      properties: { name: { type: 'string' }, client: { type: 'string' } },
    },
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
} as const;

const briefOut = {
  type: 'object',
  required: ['id', 'role', 'tags', 'createdAt', 'thought'],
  properties: {
    id: { type: 'string' },
    role,
    tags: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'string' },
    thought: { type: 'string', description: 'First line of the thought' },
  },
} as const;

const dependentOut = {
  type: 'object',
  required: ['nodeId', 'thought', 'tags', 'role', 'createdAt'],
  properties: {
    nodeId: { type: 'string' },
    thought: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    role,
    createdAt: { type: 'string' },
  },
} as const;

const summaryOut = {
  type: 'object',
  required: ['summaryId', 'status', 'method', 'remainingNodeIds', 'message'],
  properties: {
    summaryId: { type: 'string' },
    status: { type: 'string', enum: ['recalculated', 'empty', 'conflict', 'failed', 'not_recalculated'] },
    method: { type: ['string', 'null'], enum: ['sampling', 'extractive', null] },
    remainingNodeIds: { type: 'array', items: { type: 'string' } },
    message: { type: 'string' },
  },
} as const;

export const addNodesSchemas = toolSchemas({
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
});

export const listNodesSchemas = toolSchemas({
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
});

export const getNodeSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['projectContext', 'id'],
    properties: {
      projectContext,
      id: nodeId,
      neighbours: {
        type: 'boolean',
        default: false,
        description: 'Also answer its parents, its children and the summaries that cover it, in the brief shape of list_nodes',
      },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['project', 'node'],
    properties: {
      project: { type: 'string' },
      node: nodeOut,
      neighbours: {
        type: 'object',
        description: 'With neighbours: true. Parents and children in graph order; summaries: those whose summarizedSegment names the node',
        required: ['parents', 'children', 'summaries'],
        properties: {
          parents: { type: 'array', items: briefOut },
          children: { type: 'array', items: briefOut },
          summaries: { type: 'array', items: briefOut },
        },
      },
    },
  },
});

const isoTime = { type: 'string', format: 'date-time', description: 'ISO 8601 time, inclusive' } as const;

export const searchNodesSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['query'],
    properties: {
      projectContext: { ...projectContext, description: 'The project to search (or give projects)' },
      projects: {
        description: 'Several projects (contexts or ids) instead of projectContext, or "*" for every project the caller may see; each hit names its project',
        oneOf: [
          { type: 'array', items: { type: 'string', minLength: 1, maxLength: 4096 }, minItems: 1, maxItems: 100 },
          { type: 'string', enum: ['*'] },
        ],
      },
      query: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description:
          'Web-search style: words are ANDed, "a phrase", -word excludes, word* is a prefix, a OR b. Case, accents and English word endings are ignored',
      },
      role,
      tags,
      since: isoTime,
      until: isoTime,
      includeDeleted: { type: 'boolean', default: false, description: 'Search soft-deleted nodes too (hits say deleted: true)' },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
      cursor: { type: 'string', minLength: 1, maxLength: 4000 },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['project', 'hits', 'total', 'totalExact', 'nextCursor'],
    properties: {
      project: { type: ['string', 'null'], description: 'The project searched; null when several were' },
      hits: {
        type: 'array',
        items: {
          type: 'object',
          required: [...briefOut.required, 'project', 'score', 'snippet'],
          properties: {
            ...briefOut.properties,
            project: { type: 'string' },
            score: { type: 'number', description: 'Relevance, higher first; comparable within one project' },
            snippet: { type: 'string', description: 'Text around the first match, matching words marked **like this**' },
            deleted: { type: 'boolean', description: 'Only with includeDeleted: the node is soft-deleted' },
          },
        },
      },
      total: {
        type: 'integer',
        description: 'Nodes matching in all when totalExact; otherwise at least this many (a store may stop counting at 10,000)',
      },
      totalExact: { type: 'boolean', description: 'false: total is a lower bound ("10,000+")' },
      nextCursor: { type: ['string', 'null'] },
    },
  },
});

export const deleteNodesSchemas = toolSchemas({
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
});

export const restoreNodesSchemas = toolSchemas({
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
});
