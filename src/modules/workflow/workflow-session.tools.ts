import { WorkflowTokens } from './application/workflow.tokens';
import { defineTool, type ToolAnnotations, type ToolDefinition } from '../../kernel/tools/tool-definition';
import {
  workflowCheckpointSchemas,
  workflowContinueSchemas,
  workflowResumeSchemas,
  workflowSessionSchemas,
  workflowSessionsSchemas,
  workflowStartSchemas,
} from './application/workflow-session.tool-schemas';

/**
 * The durable-session tools (docs/sessions.md): the server keeps a workflow run's completed steps, context, notes and
 * history in a session, so a new chat or a crashed client resumes where the run was. workflow_next stays stateless.
 */

const writes: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const workflowSessionTools: ToolDefinition[] = [
  defineTool({
    name: 'workflow_start',
    title: 'Start a workflow session',
    description:
      'Start a durable workflow session: the server keeps steps, context and notes, so the run survives a new chat or a crash (workflow_resume finds it); the workflow is pinned as it is now. Returns the first step, a continueToken for workflow_continue and a checkpointToken of the start.',
    ...workflowStartSchemas,
    annotations: { ...writes, idempotentHint: false, title: 'Start a workflow session' },
    useCase: WorkflowTokens.StartSession,
    plainMethod: true,
    module: 'workflow',
    view: 'session',
  }),
  defineTool({
    name: 'workflow_continue',
    title: 'Continue a workflow session',
    description:
      "Finish a session's current step, get the next. Send the last continueToken, `output.notesMarkdown` (what you did) and only the `context` variables you changed. Answers `advanced`, `blocked` (same step; `blockers` say what is missing) or `complete`. A repeated call answers the same; an older token with new output is a `conflict` unless `fork: true`.",
    ...workflowContinueSchemas,
    annotations: { ...writes, title: 'Continue a workflow session' },
    useCase: WorkflowTokens.ContinueSession,
    plainMethod: true,
    module: 'workflow',
    // A call that runs a verification command becomes a task (tasks extension) right before the command starts; any
    // other call answers directly (docs/protocol-eras.md "Tasks").
    longRunning: { promoted: true },
    view: 'session',
  }),
  defineTool({
    name: 'workflow_checkpoint',
    title: 'Checkpoint a workflow session',
    description:
      'Mark the point a continueToken stands for and get a checkpointToken. workflow_continue accepts it wherever it accepts a continueToken and resumes from that point (the step current then) on a new branch — nothing of the other branch is lost.',
    ...workflowCheckpointSchemas,
    annotations: { ...writes, idempotentHint: false, title: 'Checkpoint a workflow session' },
    useCase: WorkflowTokens.CheckpointSession,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_resume',
    title: 'Resume a workflow session',
    description:
      'Find sessions to pick up again (new chat, after a crash): unfinished ones unless `status` says otherwise, ranked by same workspace (default your first MCP root) and branch, then `query` words in goal and notes, then recency. Each has a fresh continueToken, the current step and a recap of the notes.',
    ...workflowResumeSchemas,
    annotations: { ...readOnly, title: 'Resume a workflow session' },
    useCase: WorkflowTokens.ResumeSessions,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_sessions',
    title: 'List workflow sessions',
    description: 'A page of sessions (id, workflow, goal, status, current step, times), most recently updated first. Filter by status, workflowId or workspacePath; pass nextCursor as cursor for the next page.',
    ...workflowSessionsSchemas,
    annotations: { ...readOnly, title: 'List workflow sessions' },
    useCase: WorkflowTokens.ListSessions,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_session',
    title: 'Workflow session timeline',
    description: "A session's whole timeline for people and dashboards: every event (steps with their notes, blocked attempts, checkpoints, forks, resumes, completion) in order, the current state, and any log line that could not be read.",
    ...workflowSessionSchemas,
    annotations: { ...readOnly, title: 'Workflow session timeline' },
    useCase: WorkflowTokens.GetSessionTimeline,
    plainMethod: true,
    module: 'workflow',
    view: 'session',
  }),
];

