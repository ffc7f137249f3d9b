import { toolSchemas } from '../../../kernel/tools/tool-schema';
import { nodeId, nodeIds, projectContext, role, tags, nodeFields, nodeOut, briefOut, dependentOut, summaryOut } from './knowledge-node.schemas';

/** The input and output schemas of the knowledge module's tools, each written once: knowledge.tools.ts declares the tools with them. */

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
            score: { type: 'number', description: 'Relevance, higher first; comparable within one project: Σ idf × ts_rank of each query term (thought 1, tags 0.4, artifacts 0.2; no length normalization), the same on every store' },
            snippet: {
              type: 'string',
              // Output-schema prose is not served in tools/list (tests/e2e/tools-list-size.test.ts): it is for spec/mcp-api.md.
              description:
                'About 200 characters of the thought around its first match (its first line when the match was in tags or artifacts), newlines as spaces, … where cut; ' +
                'matching words marked **like this**. The thought\'s own \\ and * are escaped markdown-style (\\\\, \\*), so ** is only ever a mark: read \\x as x',
            },
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
