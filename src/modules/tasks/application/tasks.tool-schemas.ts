import { ALL_TASK_STATUSES } from '../domain/task-status';
import { toolSchemas } from '../../../kernel/tools/tool-schema';

/**
 * The input and output schemas of the tasks module's tools, each written once: tasks.tools.ts declares the tools with
 * them, the use cases take their input and output types from them (ToolInput / ToolOutput), and
 * tests/unit/spec/entity-schemas.test.ts checks spec/task-graph.schema.json's node against `taskNode`.
 */

const project = { type: 'string', minLength: 1, maxLength: 200, description: 'Project name or id (its path-safe slug).' } as const;
const nodeId = { type: 'string', minLength: 1, maxLength: 200, description: 'Task node id.' } as const;
const status = { type: 'string', enum: [...ALL_TASK_STATUSES] } as const;
const priority = { type: 'string', enum: ['high', 'medium', 'low'], description: 'Default medium.' } as const;
const tags = { type: 'array', maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 64 } } as const;
const metadata = {
  type: 'object',
  maxProperties: 32,
  propertyNames: { minLength: 1, maxLength: 64 },
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: 1000 },
  description: 'External ids (issue URL, ticket key); 4 KiB at most.',
} as const;
const revision = { type: 'integer', description: "The project graph's revision after this call (every change adds one)." } as const;
const expectedRevision = { type: 'integer', minimum: 0, description: 'Apply only at this revision (else conflict).' } as const;
const agent = { type: 'string', minLength: 1, maxLength: 200, description: 'Your agent name (the claimant, with identity and host).' } as const;
const reason = { type: 'string', maxLength: 1000, description: 'One line for the history.' } as const;
const claimant = {
  identity: { type: ['string', 'null'] },
  agent: { type: ['string', 'null'] },
  host: { type: 'string' },
} as const;
const claim = {
  type: 'object',
  description: 'Who holds the started task and until when (renewed by each of their calls on it).',
  properties: { ...claimant, since: { type: 'string' }, expires_at: { type: 'string' } },
} as const;
const planChange = {
  type: 'object',
  required: ['revision', 'time', 'actor', 'action', 'reason', 'nodes'],
  properties: {
    revision: { type: 'integer' },
    time: { type: 'string' },
    actor: { type: 'object', properties: { ...claimant, client: { type: 'string' } } },
    action: { type: 'string' },
    reason: { type: 'string' },
    nodes: { type: 'array', items: { type: 'string' } },
  },
} as const;

const nodeDefinition = {
  type: 'object',
  required: ['id', 'title'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    title: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    depends_on: { type: 'array', items: { type: 'string', minLength: 1 }, default: [] },
    validation_command: {
      type: 'string',
      description: 'Shell command run in projectRoot by validate_task_loop; exit 0 completes the task. Without it the task completes unchecked.',
    },
    max_attempts: { type: 'integer', minimum: 1, maximum: 100, default: 3 },
    timeout_ms: { type: 'integer', minimum: 100, maximum: 24 * 3600 * 1000, default: 600000, description: 'Default 10 minutes.' },
    output_tail_bytes: {
      type: 'integer',
      minimum: 256,
      maximum: 65536,
      description: "Bytes of each output stream's tail a validate_task_loop answer carries. Default: the server's --output-tail (8192).",
    },
    priority,
    tags,
    metadata,
  },
} as const;

/** How a validation command ended: in a failed attempt's record and in the latest run's result alike. */
const commandOutcome = {
  exit_code: { type: ['integer', 'null'] },
  signal: { type: ['string', 'null'] },
  duration_ms: { type: 'number' },
  timed_out: { type: 'boolean' },
  stdout_tail: { type: 'string' },
  stderr_tail: { type: 'string' },
} as const;

const errorLog = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    time: { type: 'string' },
    ...commandOutcome,
  },
} as const;

const runResult = {
  type: 'object',
  description: "The latest finished validation run's result, kept until the next one ends.",
  properties: {
    run_id: { type: 'string' },
    attempt: { type: 'integer' },
    passed: { type: 'boolean' },
    finished_at: { type: 'string' },
    command_ran: { type: 'boolean' },
    ...commandOutcome,
    truncated: { type: 'boolean' },
    delivered: { type: 'boolean', description: 'False until a validate_task_loop caller received it.' },
  },
} as const;

const runLease = {
  type: 'object',
  description: 'Who runs the command while VALIDATING; renewed while it runs.',
  properties: {
    host: { type: 'string' },
    boot_id: { type: ['string', 'null'] },
    pid: { type: 'integer' },
    run_id: { type: 'string', description: "Also the command's WORKGRAPH_COMMAND_ID environment variable." },
    pgid: { type: 'integer', description: "Process group of the command's shell, once it started." },
    expires_at: { type: 'string' },
  },
} as const;

/** The task node as the tools answer it (spec/task-graph.schema.json `node` is the stored form). */
export const taskNode = {
  type: 'object',
  required: ['id', 'title', 'status', 'depends_on', 'current_attempt', 'max_attempts', 'error_logs'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    depends_on: { type: 'array', items: { type: 'string' } },
    validation_command: { type: 'string' },
    max_attempts: { type: 'integer' },
    timeout_ms: { type: 'integer' },
    status,
    current_attempt: { type: 'integer', description: 'Validation attempts that ran to an end.' },
    error_logs: { type: 'array', items: errorLog, description: 'The latest 20 failed attempts (older ones are in the transition log).' },
    validating_since: { type: 'string' },
    validation_run_id: { type: 'string' },
    owner: runLease,
    output_tail_bytes: { type: 'integer' },
    last_run: runResult,
    priority,
    tags: { type: 'array', items: { type: 'string' } },
    metadata: { type: 'object' },
    claim,
    split_from: { type: 'string', description: 'On the first task of a split: the task it replaced.' },
    updated_at: { type: 'string' },
  },
} as const;

const projectGraph = {
  type: 'object',
  required: ['project_id', 'project_name', 'project_root', 'revision', 'nodes', 'counts', 'mermaid', 'history'],
  properties: {
    project_id: { type: 'string' },
    project_name: { type: 'string' },
    project_root: { type: 'string' },
    revision,
    nodes: { type: 'array', items: taskNode },
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
    mermaid: { type: 'string', description: 'Mermaid flowchart of the DAG, one style per status.' },
    history: { type: 'array', items: planChange, description: 'The latest 20 changes of the plan, oldest first.' },
  },
} as const;

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
