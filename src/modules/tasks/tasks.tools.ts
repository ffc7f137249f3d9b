import { TasksTokens } from './application/tasks.tokens';
import { defineTool, type ToolDefinition } from '../../kernel/tools/tool-definition';
import {
  getProjectGraphSchemas,
  getReadyTasksSchemas,
  initProjectGraphSchemas,
  resetTaskNodeSchemas,
  scaffoldProjectDocsSchemas,
  startTaskSchemas,
  validateTaskLoopSchemas,
} from './application/tasks.tool-schemas';

/**
 * The tasks module's tools (docs/tasks.md; contracts in spec/mcp-api.md): a dependency-ordered task DAG per project where the server
 * runs each task's validation command and drives the retry loop.
 */

export const tasksTools: ToolDefinition[] = [
  defineTool({
    name: 'init_project_graph',
    title: 'Create a project task graph',
    description:
      "Create a project's task DAG. Nodes without depends_on start READY, others PENDING. Refuses duplicate ids, unknown dependencies, cycles (named: a -> b -> a), an empty graph, a projectRoot that is missing or outside the allowed roots, and an existing project unless replace is true.",
    ...initProjectGraphSchemas,
    annotations: { title: 'Create a project task graph', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.InitProjectGraph,
    module: 'tasks',
  }),
  defineTool({
    name: 'get_ready_tasks',
    title: 'List tasks ready to start',
    description: 'Lists the READY and RETRYING tasks of a project: the ones start_task accepts now.',
    ...getReadyTasksSchemas,
    annotations: { title: 'List tasks ready to start', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: TasksTokens.GetReadyTasks,
    module: 'tasks',
  }),
  defineTool({
    name: 'get_project_graph',
    title: 'Show a project task graph',
    description: 'Returns every task of a project with its status and error_logs, the counts per status, and a Mermaid flowchart of the DAG styled by status.',
    ...getProjectGraphSchemas,
    annotations: { title: 'Show a project task graph', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: TasksTokens.GetProjectGraph,
    module: 'tasks',
  }),
  defineTool({
    name: 'start_task',
    title: 'Start a task',
    description:
      'Moves a READY or RETRYING task to IN_PROGRESS (on RETRYING, validate_task_loop alone also starts the next attempt). Any other status is refused with the current status and the calls allowed from it.',
    ...startTaskSchemas,
    annotations: { title: 'Start a task', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.StartTask,
    module: 'tasks',
  }),
  defineTool({
    name: 'validate_task_loop',
    title: "Run a task's validation command",
    description:
      "Run the task's validation_command in projectRoot (IN_PROGRESS or RETRYING -> VALIDATING; RETRYING starts the next attempt). Exit 0 completes the task; a failure uses an attempt (RETRYING, FAILED at max_attempts). After waitSeconds (45) a run still going answers running: true; call again to wait for it or get its result (replayed, with its attempt). Cancelling kills it without using an attempt.",
    ...validateTaskLoopSchemas,
    annotations: { title: "Run a task's validation command", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    // It runs a command on the server's machine: `write` is not enough.
    scope: 'run',
    useCase: TasksTokens.ValidateTaskLoop,
    module: 'tasks',
  }),
  defineTool({
    name: 'reset_task_node',
    title: 'Reset a task',
    description:
      'Send a FAILED, RETRYING, IN_PROGRESS, COMPLETED (or orphaned VALIDATING) task back to READY or PENDING; attempts cleared, error_logs kept. A reset COMPLETED task sends its READY dependents back to PENDING; refused while a dependent is past READY or the command runs.',
    ...resetTaskNodeSchemas,
    annotations: { title: 'Reset a task', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.ResetTaskNode,
    module: 'tasks',
  }),
  defineTool({
    name: 'scaffold_project_docs',
    title: 'Write project planning docs',
    description:
      'Writes ARCHITECTURE.md, one file per phase and TEST_CASES.md into targetDirectory (inside the allowed roots). ' +
      'Refuses file names that would land outside it (.., absolute, NUL, symlinks out) and existing files unless overwrite is true.',
    ...scaffoldProjectDocsSchemas,
    annotations: { title: 'Write project planning docs', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.ScaffoldProjectDocs,
    module: 'tasks',
  }),
];
