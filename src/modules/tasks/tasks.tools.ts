import { TasksTokens } from './application/tasks.tokens';
import { defineTool, type ToolDefinition } from '../../kernel/tools/tool-definition';
import { addTasksSchemas, removeTasksSchemas, splitTaskSchemas, updateTaskSchemas } from './application/task-plan-edit.tool-schemas';
import {
  claimNextTaskSchemas,
  getTaskDetailsSchemas,
  releaseTaskSchemas,
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
    description: 'Lists the READY and RETRYING tasks of a project (the ones start_task accepts now) by priority, then by how many tasks each unblocks; tags and metadata narrow the list.',
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
    view: 'task-dag',
  }),
  defineTool({
    name: 'start_task',
    title: 'Start a task',
    description:
      'Moves a READY or RETRYING task to IN_PROGRESS, claimed by you (identity, agent, host) for --claim-ttl (30 min), renewed by each of your calls on it; an expired claim puts it back to READY. Another status is refused with the calls allowed from it; a task another agent claims is refused (claimed) naming them and when the claim lapses.',
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
    // As a task (tasks extension) it waits for the command's end: no "still running" answer to poll again.
    longRunning: { taskArguments: (args) => ({ ...args, waitSeconds: 3600 }) },
    view: 'task-dag',
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
    name: 'add_tasks',
    title: 'Add tasks to a plan',
    description:
      "Add tasks (init_project_graph's node shape) depending on existing or new ones: READY when every dependency is COMPLETED, else PENDING. Refuses existing ids, unknown dependencies and cycles (named). expectedRevision makes it compare-and-set (stale: conflict with the current revision).",
    ...addTasksSchemas,
    annotations: { title: 'Add tasks to a plan', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.AddTasks,
    module: 'tasks',
  }),
  defineTool({
    name: 'update_task',
    title: 'Edit a task',
    description:
      "Change a task's fields. Refused while its command runs, a depends_on change while it is IN_PROGRESS/VALIDATING/RETRYING (has_progress), and on a task another agent claims (claimed). On a COMPLETED task a new command or new depends_on sends it back to READY/PENDING with everything downstream (in cascaded); other edits keep the status.",
    ...updateTaskSchemas,
    annotations: { title: 'Edit a task', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.UpdateTask,
    module: 'tasks',
  }),
  defineTool({
    name: 'remove_tasks',
    title: 'Remove tasks from a plan',
    description:
      'Remove tasks. Refused while one runs or another agent claims one, and while a remaining task depends on one (has_dependents, naming them) unless the same call removes it too or re-points it (repoint: {id: [new depends_on]}).',
    ...removeTasksSchemas,
    annotations: { title: 'Remove tasks from a plan', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.RemoveTasks,
    module: 'tasks',
  }),
  defineTool({
    name: 'split_task',
    title: 'Split a task',
    description:
      'One task becomes several (into: nodes). The new tasks depending on none of the others inherit its dependencies; its dependents then depend on the new leaves; the first new task carries its history. Refused while it has work under way or is COMPLETED (has_progress).',
    ...splitTaskSchemas,
    annotations: { title: 'Split a task', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.SplitTask,
    module: 'tasks',
  }),
  defineTool({
    name: 'claim_next_task',
    title: 'Claim the next ready task',
    description:
      "One call for an agent's loop: atomically takes the first ready task (priority, then how many tasks it unblocks; tasks other agents claim left out; tags/metadata narrow it) and starts it, claimed by you. Nothing ready: claimed false, with what blocks the unfinished tasks.",
    ...claimNextTaskSchemas,
    annotations: { title: 'Claim the next ready task', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.ClaimNextTask,
    module: 'tasks',
  }),
  defineTool({
    name: 'release_task',
    title: 'Release a claimed task',
    description: 'Give up a task you started: IN_PROGRESS goes back to READY (RETRYING stays RETRYING), attempts kept, the claim dropped. Refused while its command runs and for anyone but the claimant.',
    ...releaseTaskSchemas,
    annotations: { title: 'Release a claimed task', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    useCase: TasksTokens.ReleaseTask,
    module: 'tasks',
  }),
  defineTool({
    name: 'get_task_details',
    title: 'Show one task with its history',
    description: "One task with its status changes, its direct dependents and the plan's history of changes that concern it (actor, time, reason).",
    ...getTaskDetailsSchemas,
    annotations: { title: 'Show one task with its history', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: TasksTokens.GetTaskDetails,
    module: 'tasks',
    view: 'task-dag',
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
