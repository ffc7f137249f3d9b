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
 * The tasks module's tools (DESIGN.md §2, tasks module): a dependency-ordered task DAG per project where the server
 * runs each task's validation command and drives the retry loop.
 */

export const tasksTools: ToolDefinition[] = [
  defineTool({
    name: 'init_project_graph',
    title: 'Create a project task graph',
    description:
      'Creates the task DAG of a project. Nodes without depends_on start READY, the others PENDING. Refuses duplicate ' +
      'ids, unknown dependencies, cycles (named, e.g. a -> b -> a), an empty graph, a projectRoot that is not an ' +
      'existing directory inside the allowed roots, and an existing project unless replace is true.',
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
      "Runs the task's validation_command in the project root (IN_PROGRESS or RETRYING -> VALIDATING: on RETRYING the " +
      'next attempt starts at once). Exit 0 completes the task and unlocks its dependents; a failure or timeout uses an ' +
      'attempt (RETRYING, or FAILED at max_attempts). Waits at most waitSeconds (default 45): a command still running ' +
      'then answers {validation_passed: null, running: true} and goes on; call again on the same node to wait for that ' +
      'same run, or to be given its result (replayed: true, with its attempt number) if it ended meanwhile. Cancelling ' +
      'the call kills the command and returns the task to IN_PROGRESS without using an attempt. Output tails: 8 KiB per ' +
      'stream by default. Sends progress notifications about every second.',
    ...validateTaskLoopSchemas,
    annotations: { title: "Run a task's validation command", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    useCase: TasksTokens.ValidateTaskLoop,
    module: 'tasks',
  }),
  defineTool({
    name: 'reset_task_node',
    title: 'Reset a task',
    description:
      'Sends a FAILED, RETRYING, IN_PROGRESS or COMPLETED task (or one left VALIDATING by a server that died) back to ' +
      'READY or PENDING by its dependencies; attempts cleared, error_logs kept. Resetting a COMPLETED task sends its ' +
      'READY dependents back to PENDING and is refused while a dependent is past READY. Refused while its command runs.',
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
