import { toolSchemas } from '../../../kernel/tools/tool-schema';
import {
  project,
  nodeId,
  status,
  priority,
  tags,
  metadata,
  revision,
  expectedRevision,
  agent,
  reason,
  nodeDefinition,
  taskNode,
} from './task-node.schemas';

/**
 * The input and output schemas of the plan edits (add_tasks, update_task, remove_tasks, split_task), each written
 * once, as in tasks.tool-schemas.ts: they change the plan at an expected revision and answer what they touched.
 */

/** What a plan edit answers: the tasks it touched, the cascade it caused, a message and the revision written. */
const planEditAnswer = {
  type: 'object',
  required: ['nodes', 'cascaded', 'message', 'revision'],
  properties: {
    nodes: { type: 'array', items: taskNode, description: 'The tasks added or changed, as they are now.' },
    removed: { type: 'array', items: { type: 'string' } },
    cascaded: {
      type: 'array',
      description: 'Tasks whose status the edit changed as a consequence.',
      items: { type: 'object', required: ['id', 'status'], properties: { id: { type: 'string' }, status } },
    },
    message: { type: 'string' },
    revision,
  },
} as const;

export const addTasksSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project', 'nodes'],
    additionalProperties: false,
    properties: { project, nodes: { type: 'array', minItems: 1, maxItems: 10000, items: nodeDefinition }, expectedRevision, agent, reason },
  },
  outputSchema: planEditAnswer,
});

export const updateTaskSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project', 'nodeId'],
    additionalProperties: false,
    properties: {
      project,
      nodeId,
      title: { type: 'string', minLength: 1 },
      description: { type: ['string', 'null'], description: 'null removes it.' },
      validation_command: { type: ['string', 'null'], description: 'null or "" removes it.' },
      max_attempts: { type: 'integer', minimum: 1, maximum: 100 },
      timeout_ms: { type: 'integer', minimum: 100, maximum: 24 * 3600 * 1000 },
      output_tail_bytes: { type: ['integer', 'null'], minimum: 256, maximum: 65536 },
      depends_on: { type: 'array', items: { type: 'string', minLength: 1 } },
      priority,
      tags,
      metadata: { ...metadata, type: ['object', 'null'], description: 'Replaces it (null removes it).' },
      expectedRevision,
      agent,
      reason,
    },
  },
  outputSchema: planEditAnswer,
});

export const removeTasksSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project', 'nodeIds'],
    additionalProperties: false,
    properties: {
      project,
      nodeIds: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      repoint: {
        type: 'object',
        additionalProperties: { type: 'array', items: { type: 'string', minLength: 1 } },
        description: 'Remaining dependents: id -> new depends_on.',
      },
      expectedRevision,
      agent,
      reason,
    },
  },
  outputSchema: planEditAnswer,
});

export const splitTaskSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project', 'nodeId', 'into'],
    additionalProperties: false,
    properties: {
      project,
      nodeId,
      into: {
        type: 'array',
        minItems: 2,
        items: nodeDefinition,
        description: 'The new tasks; the first carries its history and may keep its id.',
      },
      expectedRevision,
      agent,
      reason,
    },
  },
  outputSchema: planEditAnswer,
});
