import { KNOWLEDGE_ROLES, KNOWLEDGE_VERDICTS } from '../domain/knowledge-node';
import { SEARCH_LIMITS } from '../domain/search/search-limits';

/**
 * The schema pieces the knowledge module's tools share — a node's fields as given and as answered, its brief and
 * summary forms — each written once (knowledge.tool-schemas.ts builds the tools' schemas from them), and `nodeOut`,
 * which tests/unit/spec/entity-schemas.test.ts checks spec/knowledge-node.schema.json's node against.
 */

/** Node ids: safe, greppable tokens (generated ids are UUIDs). Same pattern as spec/knowledge-node.schema.json. */
export const nodeId = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$', description: 'A node id' } as const;

export const nodeIds = { type: 'array', items: nodeId, minItems: 1, maxItems: 10_000 } as const;

export const projectContext = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description:
    "The project's folder path (or name): one folder is one project, its last segment the readable id. Windows paths are understood.",
} as const;

export const role = { type: 'string', enum: [...KNOWLEDGE_ROLES] } as const;

export const tags = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 100 } as const;

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

export const nodeFields = {
  // The one maximum both stores search a thought under (domain/search/search-limits.ts checks the rest).
  thought: { type: 'string', minLength: 1, maxLength: SEARCH_LIMITS.thoughtLength },
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

export const briefOut = {
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

export const dependentOut = {
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

export const summaryOut = {
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
