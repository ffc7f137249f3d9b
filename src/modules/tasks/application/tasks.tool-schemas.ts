import { toolSchemas } from '../../../kernel/tools/tool-schema';
import {
  project,
  nodeId,
  status,
  priority,
  tags,
  metadata,
  revision,
  agent,
  reason,
  claim,
  planChange,
  nodeDefinition,
  errorLog,
  taskNode,
  projectGraph,
} from './task-node.schemas';

/**
 * The input and output schemas of the tasks module's tools, each written once: tasks.tools.ts declares the tools with
 * them, the use cases take their input and output types from them (ToolInput / ToolOutput). The entities they answer
 * with are in task-node.schemas.ts; the plan edits' schemas in task-plan-edit.tool-schemas.ts.
 */

export const initProjectGraphSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['projectName', 'projectRoot', 'nodes'],
    additionalProperties: false,
    properties: {
      projectName: { type: 'string', minLength: 1, maxLength: 200 },
      projectRoot: { type: 'string', minLength: 1, description: 'Folder the validation commands run in.' },
      nodes: { type: 'array', minItems: 1, items: nodeDefinition },
      replace: { type: 'boolean', default: false },
      agent,
      reason,
    },
  },
  outputSchema: projectGraph,
});

export const getReadyTasksSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project'],
    additionalProperties: false,
    properties: {
      project,
      tags: { ...tags, description: 'Only tasks with all these tags.' },
      metadata: { ...metadata, description: 'Only tasks with these metadata values.' },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['ready_count', 'ready_tasks', 'revision'],
    properties: {
      ready_count: { type: 'integer' },
      ready_tasks: {
        type: 'array',
        description: 'By priority (high first), then by how many unfinished tasks each unblocks, then graph order.',
        items: {
          type: 'object',
          required: ['id', 'title', 'status', 'priority', 'unblocks'],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            status,
            priority,
            unblocks: { type: 'integer', description: 'Unfinished tasks downstream of it (directly or further).' },
            tags: { type: 'array', items: { type: 'string' } },
            metadata: { type: 'object' },
            claim,
          },
        },
      },
      revision,
    },
  },
});

export const getProjectGraphSchemas = toolSchemas({
  inputSchema: { type: 'object', required: ['project'], additionalProperties: false, properties: { project } },
  outputSchema: projectGraph,
});

export const startTaskSchemas = toolSchemas({
  inputSchema: { type: 'object', required: ['project', 'nodeId'], additionalProperties: false, properties: { project, nodeId, agent } },
  outputSchema: { type: 'object', required: ['node', 'message', 'revision'], properties: { node: taskNode, message: { type: 'string' }, revision } },
});

export const validateTaskLoopSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project', 'nodeId'],
    additionalProperties: false,
    properties: {
      project,
      nodeId,
      waitSeconds: { type: 'number', minimum: 0, maximum: 3600, default: 45, description: 'Longest wait in this call. Default 45.' },
      agent,
    },
  },
  outputSchema: {
    type: 'object',
    required: ['validation_passed', 'message'],
    properties: {
      validation_passed: { type: ['boolean', 'null'], description: 'null while the command is still running.' },
      running: { type: 'boolean' },
      message: { type: 'string' },
      attempt: { type: 'integer', description: 'The attempt number of the run this answer is about.' },
      replayed: { type: 'boolean', description: "True when this is a finished run's result given again, not a new run." },
      result: {
        type: ['object', 'null'],
        description: 'null when the task has no validation_command.',
        properties: {
          exitCode: { type: ['integer', 'null'] },
          signal: { type: ['string', 'null'] },
          durationMs: { type: 'number' },
          stdout: { type: 'string' },
          stderr: { type: 'string' },
          truncated: { type: 'boolean', description: "True when a stream passed the output tail size; its tail is kept." },
        },
      },
      node: { ...taskNode, description: "The task, with only this attempt's record in error_logs." },
      unlocked: { type: 'array', items: { type: 'string' } },
      revision,
    },
  },
});

export const resetTaskNodeSchemas = toolSchemas({
  inputSchema: { type: 'object', required: ['project', 'nodeId'], additionalProperties: false, properties: { project, nodeId, agent, reason } },
  outputSchema: {
    type: 'object',
    required: ['node', 'reverted', 'message', 'revision'],
    properties: { node: taskNode, reverted: { type: 'array', items: { type: 'string' } }, message: { type: 'string' }, revision },
  },
});

export const claimNextTaskSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['project'],
    additionalProperties: false,
    properties: {
      project,
      agent,
      tags: { ...tags, description: 'Only tasks with all these tags.' },
      metadata: { ...metadata, description: 'Only tasks with these metadata values.' },
    },
  },
  outputSchema: {
    type: 'object',
    required: ['claimed', 'message', 'revision'],
    properties: {
      claimed: { type: 'boolean' },
      node: { ...taskNode, description: 'The task claimed and started (IN_PROGRESS), when there was one.' },
      message: { type: 'string' },
      blocked: {
        type: 'array',
        description: 'When nothing is ready: the unfinished tasks and what holds each (a claim, or the tasks it waits for).',
        items: {
          type: 'object',
          required: ['id', 'status', 'reason'],
          properties: { id: { type: 'string' }, status, reason: { type: 'string' }, waiting_for: { type: 'array', items: { type: 'string' } }, claim },
        },
      },
      revision,
    },
  },
});

export const releaseTaskSchemas = toolSchemas({
  inputSchema: { type: 'object', required: ['project', 'nodeId'], additionalProperties: false, properties: { project, nodeId, agent, reason } },
  outputSchema: { type: 'object', required: ['node', 'message', 'revision'], properties: { node: taskNode, message: { type: 'string' }, revision } },
});

export const getTaskDetailsSchemas = toolSchemas({
  inputSchema: { type: 'object', required: ['project', 'nodeId'], additionalProperties: false, properties: { project, nodeId } },
  outputSchema: {
    type: 'object',
    required: ['project', 'node', 'transitions', 'dependents', 'history', 'revision'],
    properties: {
      project: { type: 'string' },
      node: taskNode,
      transitions: {
        type: 'array',
        description: 'Its status changes, oldest first (with those of the task it was split from).',
        items: {
          type: 'object',
          properties: {
            node: { type: 'string' },
            from: status,
            to: status,
            time: { type: 'string' },
            attempt: { type: 'integer' },
            record: errorLog,
            actor: {
              type: 'object',
              description: "Who made the change: the identity's name and the agent's client name",
              required: ['name'],
              properties: { name: { type: 'string' }, client: { type: 'string' } },
            },
          },
        },
      },
      dependents: { type: 'array', items: { type: 'string' } },
      history: { type: 'array', items: planChange, description: 'The changes of the plan that concern it, oldest first.' },
      revision,
    },
  },
});

export const scaffoldProjectDocsSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['targetDirectory', 'architectureContent', 'phaseTasks', 'testCasesContent'],
    additionalProperties: false,
    properties: {
      targetDirectory: { type: 'string', minLength: 1 },
      architectureContent: { type: 'string' },
      phaseTasks: {
        type: 'array',
        items: {
          type: 'object',
          required: ['fileName', 'content'],
          additionalProperties: false,
          properties: { fileName: { type: 'string', minLength: 1 }, content: { type: 'string' } },
        },
      },
      testCasesContent: { type: 'string' },
      overwrite: { type: 'boolean', default: false },
    },
  },
  outputSchema: { type: 'object', required: ['files_written'], properties: { files_written: { type: 'array', items: { type: 'string' } } } },
});
