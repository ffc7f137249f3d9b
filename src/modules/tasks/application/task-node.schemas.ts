import { ALL_TASK_STATUSES } from '../domain/task-status';

/**
 * The entities the tasks module's tools answer with, and the fields their schemas share, each written once: the task
 * node (`taskNode`; tests/unit/spec/entity-schemas.test.ts checks spec/task-graph.schema.json's node against it), the
 * project graph and a plan change. The tools' schemas are built from them: tasks.tool-schemas.ts (the graph, its
 * tasks' runs and claims) and task-plan-edit.tool-schemas.ts (the plan edits).
 */

export const project = { type: 'string', minLength: 1, maxLength: 200, description: 'Project name or id (its path-safe slug).' } as const;
export const nodeId = { type: 'string', minLength: 1, maxLength: 200, description: 'Task node id.' } as const;
export const status = { type: 'string', enum: [...ALL_TASK_STATUSES] } as const;
export const priority = { type: 'string', enum: ['high', 'medium', 'low'], description: 'Default medium.' } as const;
export const tags = { type: 'array', maxItems: 32, items: { type: 'string', minLength: 1, maxLength: 64 } } as const;
export const metadata = {
  type: 'object',
  maxProperties: 32,
  propertyNames: { minLength: 1, maxLength: 64 },
  additionalProperties: { type: ['string', 'number', 'boolean'], maxLength: 1000 },
  description: 'External ids (issue URL, ticket key); 4 KiB at most.',
} as const;
export const revision = { type: 'integer', description: "The project graph's revision after this call (every change adds one)." } as const;
export const expectedRevision = { type: 'integer', minimum: 0, description: 'Apply only at this revision (else conflict).' } as const;
export const agent = { type: 'string', minLength: 1, maxLength: 200, description: 'Your agent name (the claimant, with identity and host).' } as const;
export const reason = { type: 'string', maxLength: 1000, description: 'One line for the history.' } as const;
export const claimant = {
  identity: { type: ['string', 'null'] },
  agent: { type: ['string', 'null'] },
  host: { type: 'string' },
} as const;
export const claim = {
  type: 'object',
  description: 'Who holds the started task and until when (renewed by each of their calls on it).',
  properties: { ...claimant, since: { type: 'string' }, expires_at: { type: 'string' } },
} as const;
export const planChange = {
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

export const nodeDefinition = {
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
export const commandOutcome = {
  exit_code: { type: ['integer', 'null'] },
  signal: { type: ['string', 'null'] },
  duration_ms: { type: 'number' },
  timed_out: { type: 'boolean' },
  stdout_tail: { type: 'string' },
  stderr_tail: { type: 'string' },
} as const;

export const errorLog = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    time: { type: 'string' },
    ...commandOutcome,
  },
} as const;

export const runResult = {
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

export const runLease = {
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

export const projectGraph = {
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
