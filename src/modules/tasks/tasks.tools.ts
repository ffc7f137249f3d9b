import { TasksTokens } from './application/tasks.tokens';
import { ALL_TASK_STATUSES } from './domain/task-status';
import type { JsonSchema, ToolDefinition } from '../../kernel/tools/tool-definition';

/**
 * The tasks module's tools (DESIGN.md §2, tasks module): a dependency-ordered task DAG per project where the server
 * runs each task's validation command and drives the retry loop.
 */

const project: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, description: 'Project name or id (its path-safe slug).' };
const nodeId: JsonSchema = { type: 'string', minLength: 1, maxLength: 200, description: 'Task node id.' };
const status: JsonSchema = { type: 'string', enum: [...ALL_TASK_STATUSES] };

const nodeDefinition: JsonSchema = {
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
  },
};

const errorLog: JsonSchema = {
  type: 'object',
  properties: {
    attempt: { type: 'integer' },
    time: { type: 'string' },
    exit_code: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    duration_ms: { type: 'number' },
    timed_out: { type: 'boolean' },
    stdout_tail: { type: 'string' },
    stderr_tail: { type: 'string' },
  },
};

const runResult: JsonSchema = {
  type: 'object',
  description: "The latest finished validation run's result, kept until the next one ends.",
  properties: {
    run_id: { type: 'string' },
    attempt: { type: 'integer' },
    passed: { type: 'boolean' },
    finished_at: { type: 'string' },
    command_ran: { type: 'boolean' },
    exit_code: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    duration_ms: { type: 'number' },
    timed_out: { type: 'boolean' },
    stdout_tail: { type: 'string' },
    stderr_tail: { type: 'string' },
    truncated: { type: 'boolean' },
    delivered: { type: 'boolean', description: 'False until a validate_task_loop caller received it.' },
  },
};

const runLease: JsonSchema = {
  type: 'object',
  description: 'Who runs the command while VALIDATING; renewed while it runs.',
  properties: {
    host: { type: 'string' },
    boot_id: { type: ['string', 'null'] },
    pid: { type: 'integer' },
    run_id: { type: 'string' },
    expires_at: { type: 'string' },
  },
};

const taskNode: JsonSchema = {
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
    updated_at: { type: 'string' },
  },
};

const projectGraph: JsonSchema = {
  type: 'object',
  required: ['project_id', 'project_name', 'project_root', 'nodes', 'counts', 'mermaid'],
  properties: {
    project_id: { type: 'string' },
    project_name: { type: 'string' },
    project_root: { type: 'string' },
    nodes: { type: 'array', items: taskNode },
    counts: { type: 'object', additionalProperties: { type: 'integer' } },
    mermaid: { type: 'string', description: 'Mermaid flowchart of the DAG, one style per status.' },
  },
};

export const tasksTools: ToolDefinition[] = [
  {
    name: 'init_project_graph',
    title: 'Create a project task graph',
    description:
      "Create a project's task DAG. Nodes without depends_on start READY, others PENDING. Refuses duplicate ids, unknown dependencies, cycles (named: a -> b -> a), an empty graph, a projectRoot that is missing or outside the allowed roots, and an existing project unless replace is true.",
    inputSchema: {
      type: 'object',
      required: ['projectName', 'projectRoot', 'nodes'],
      additionalProperties: false,
      properties: {
        projectName: { type: 'string', minLength: 1, maxLength: 200 },
        projectRoot: { type: 'string', minLength: 1, description: 'Folder the validation commands run in.' },
        nodes: { type: 'array', minItems: 1, items: nodeDefinition },
        replace: { type: 'boolean', default: false },
      },
    },
    outputSchema: projectGraph,
    annotations: { title: 'Create a project task graph', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.InitProjectGraph,
    module: 'tasks',
  },
  {
    name: 'get_ready_tasks',
    title: 'List tasks ready to start',
    description: 'Lists the READY and RETRYING tasks of a project: the ones start_task accepts now.',
    inputSchema: { type: 'object', required: ['project'], additionalProperties: false, properties: { project } },
    outputSchema: {
      type: 'object',
      required: ['ready_count', 'ready_tasks'],
      properties: {
        ready_count: { type: 'integer' },
        ready_tasks: {
          type: 'array',
          items: { type: 'object', required: ['id', 'title', 'status'], properties: { id: { type: 'string' }, title: { type: 'string' }, status } },
        },
      },
    },
    annotations: { title: 'List tasks ready to start', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: TasksTokens.GetReadyTasks,
    module: 'tasks',
  },
  {
    name: 'get_project_graph',
    title: 'Show a project task graph',
    description: 'Returns every task of a project with its status and error_logs, the counts per status, and a Mermaid flowchart of the DAG styled by status.',
    inputSchema: { type: 'object', required: ['project'], additionalProperties: false, properties: { project } },
    outputSchema: projectGraph,
    annotations: { title: 'Show a project task graph', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: TasksTokens.GetProjectGraph,
    module: 'tasks',
  },
  {
    name: 'start_task',
    title: 'Start a task',
    description:
      'Moves a READY or RETRYING task to IN_PROGRESS (on RETRYING, validate_task_loop alone also starts the next attempt). Any other status is refused with the current status and the calls allowed from it.',
    inputSchema: { type: 'object', required: ['project', 'nodeId'], additionalProperties: false, properties: { project, nodeId } },
    outputSchema: { type: 'object', required: ['node', 'message'], properties: { node: taskNode, message: { type: 'string' } } },
    annotations: { title: 'Start a task', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.StartTask,
    module: 'tasks',
  },
  {
    name: 'validate_task_loop',
    title: "Run a task's validation command",
    description:
      "Run the task's validation_command in projectRoot (IN_PROGRESS or RETRYING -> VALIDATING; RETRYING starts the next attempt). Exit 0 completes the task; a failure uses an attempt (RETRYING, FAILED at max_attempts). After waitSeconds (45) a run still going answers running: true; call again to wait for it or get its result (replayed, with its attempt). Cancelling kills it without using an attempt.",
    inputSchema: {
      type: 'object',
      required: ['project', 'nodeId'],
      additionalProperties: false,
      properties: {
        project,
        nodeId,
        waitSeconds: { type: 'number', minimum: 0, maximum: 3600, default: 45, description: 'Longest wait in this call. Default 45.' },
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
      },
    },
    annotations: { title: "Run a task's validation command", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    useCase: TasksTokens.ValidateTaskLoop,
    module: 'tasks',
  },
  {
    name: 'reset_task_node',
    title: 'Reset a task',
    description:
      'Send a FAILED, RETRYING, IN_PROGRESS, COMPLETED (or orphaned VALIDATING) task back to READY or PENDING; attempts cleared, error_logs kept. A reset COMPLETED task sends its READY dependents back to PENDING; refused while a dependent is past READY or the command runs.',
    inputSchema: { type: 'object', required: ['project', 'nodeId'], additionalProperties: false, properties: { project, nodeId } },
    outputSchema: {
      type: 'object',
      required: ['node', 'reverted', 'message'],
      properties: { node: taskNode, reverted: { type: 'array', items: { type: 'string' } }, message: { type: 'string' } },
    },
    annotations: { title: 'Reset a task', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.ResetTaskNode,
    module: 'tasks',
  },
  {
    name: 'scaffold_project_docs',
    title: 'Write project planning docs',
    description:
      'Writes ARCHITECTURE.md, one file per phase and TEST_CASES.md into targetDirectory (inside the allowed roots). ' +
      'Refuses file names that would land outside it (.., absolute, NUL, symlinks out) and existing files unless overwrite is true.',
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
    annotations: { title: 'Write project planning docs', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.ScaffoldProjectDocs,
    module: 'tasks',
  },
];
