import { WorkflowTokens } from './application/workflow.tokens';
import type { JsonSchema, ToolAnnotations, ToolDefinition } from '../../kernel/tools/tool-definition';

/**
 * The durable-session tools (docs/sessions.md): the server keeps a workflow run's completed steps, context, notes and
 * history in a session, so a new chat or a crashed client resumes where the run was. workflow_next stays stateless.
 */

const writes: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const token = (description: string): JsonSchema => ({ type: 'string', minLength: 1, maxLength: 64, description });
const statusEnum: JsonSchema = { enum: ['active', 'needs_attention', 'complete'] };
const statusFilter: JsonSchema = {
  anyOf: [statusEnum, { type: 'array', items: statusEnum, minItems: 1 }],
  description: 'Session status(es) to include.',
};
const stepPointer: JsonSchema = {
  anyOf: [
    { type: 'object', required: ['completionId', 'stepId', 'title'], properties: { completionId: { type: 'string' }, stepId: { type: 'string' }, title: { type: 'string' } } },
    { type: 'null' },
  ],
};
/** The step in workflow_next's shape: structured fields only, its text in guidance.prompt. */
const returnedStep: JsonSchema = {
  anyOf: [
    {
      type: 'object',
      required: ['id', 'title', 'completionId'],
      properties: {
        id: { type: 'string' },
        title: { type: 'string' },
        completionId: { type: 'string' },
        loop: { type: 'object', properties: { id: { type: 'string' }, iteration: { type: 'integer' }, item: {} } },
        askForFiles: { type: 'boolean' },
        requireConfirmation: { type: 'boolean' },
        hasValidation: { type: 'boolean', description: 'The server checks the output of this step against its criteria.' },
      },
    },
    { type: 'null' },
  ],
  description: 'The step to do now (the same shape as workflow_next; its text is in guidance.prompt), or null when complete.',
};
const workflowInfo: JsonSchema = {
  type: 'object',
  required: ['id', 'version', 'hash', 'newerVersionAvailable'],
  properties: {
    id: { type: 'string' },
    version: { type: 'string' },
    hash: { type: 'string', description: 'sha256 of the workflow the session is pinned to.' },
    newerVersionAvailable: { type: 'boolean', description: 'The workflow file changed since the session started; the session keeps its version.' },
    note: { type: 'string' },
  },
};
const blocker: JsonSchema = {
  type: 'object',
  required: ['code', 'pointer', 'message'],
  properties: { code: { type: 'string' }, pointer: { type: 'string' }, message: { type: 'string' }, expected: { type: 'string' } },
};
const contextObject: JsonSchema = { type: 'object', description: 'Variables merged (shallow) into the session context; send only what changed.' };

const sessionAnswer: JsonSchema = {
  type: 'object',
  required: ['status', 'sessionId', 'continueToken', 'step', 'guidance', 'isComplete', 'context', 'sessionStatus', 'workflow'],
  properties: {
    status: { enum: ['started', 'advanced', 'blocked', 'complete'] },
    sessionId: { type: 'string' },
    continueToken: { type: 'string', description: 'Send with the next workflow_continue.' },
    checkpointToken: { type: 'string', description: 'workflow_start: a checkpoint at the very beginning.' },
    retryToken: { type: 'string', description: 'blocked: send the corrected output with this token.' },
    step: returnedStep,
    guidance: { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string' } } },
    isComplete: { type: 'boolean' },
    context: { type: 'object', description: 'The whole merged context of the session.' },
    blockers: { type: 'array', items: blocker },
    attempt: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    attemptsExhausted: { type: 'boolean', description: 'True when the blocked attempts reached the limit: ask the person.' },
    summary: { type: 'string' },
    sessionStatus: statusEnum,
    workflow: workflowInfo,
    forked: { type: 'object', properties: { from: { type: 'integer' }, previousHead: { type: 'integer' } } },
    warnings: { type: 'array', items: { type: 'string' }, description: "workflow_start: the workflow's missing references (workspace ones against workspacePath)." },
    replayed: { type: 'boolean', description: 'This exact call was made before; answered as then, nothing new recorded.' },
  },
};

export const workflowSessionTools: ToolDefinition[] = [
  {
    name: 'workflow_start',
    title: 'Start a workflow session',
    description:
      'Start a durable workflow session: the server keeps steps, context and notes, so the run survives a new chat or a crash (workflow_resume finds it); the workflow is pinned as it is now. Returns the first step, a continueToken for workflow_continue and a checkpointToken of the start.',
    inputSchema: {
      type: 'object',
      required: ['workflowId'],
      properties: {
        workflowId: { type: 'string', minLength: 1, maxLength: 255 },
        goal: { type: 'string', maxLength: 2_000, description: 'What this run is for (shown in listings, matched by workflow_resume).' },
        workspacePath: { type: 'string', maxLength: 4_096, description: 'The folder worked in; default your first MCP root.' },
        gitBranch: { type: 'string', maxLength: 255 },
        context: { type: 'object', description: 'Initial variables for conditions, loops and {{var}} placeholders.' },
      },
      additionalProperties: false,
    },
    outputSchema: sessionAnswer,
    annotations: { ...writes, idempotentHint: false, title: 'Start a workflow session' },
    useCase: WorkflowTokens.StartSession,
    plainMethod: true,
    module: 'workflow',
  },
  {
    name: 'workflow_continue',
    title: 'Continue a workflow session',
    description:
      "Finish a session's current step, get the next. Send the last continueToken, `output.notesMarkdown` (what you did) and only the `context` variables you changed. Answers `advanced`, `blocked` (same step; `blockers` say what is missing) or `complete`. A repeated call answers the same; an older token with new output is a `conflict` unless `fork: true`.",
    inputSchema: {
      type: 'object',
      required: ['continueToken'],
      properties: {
        continueToken: token('A continueToken, retryToken, checkpointToken or a token from workflow_resume.'),
        output: {
          type: 'object',
          properties: {
            notesMarkdown: { type: 'string', maxLength: 200_000, description: 'What you did in this step (kept as the step\'s notes).' },
            artifacts: { type: 'array', items: {}, maxItems: 100, description: 'Structured results of the step (JSON values).' },
          },
          additionalProperties: false,
        },
        context: contextObject,
        fork: { type: 'boolean', description: 'Branch from this token\'s point even though the run has moved on (the other branch is kept).' },
      },
      additionalProperties: false,
    },
    outputSchema: sessionAnswer,
    annotations: { ...writes, title: 'Continue a workflow session' },
    useCase: WorkflowTokens.ContinueSession,
    plainMethod: true,
    module: 'workflow',
  },
  {
    name: 'workflow_checkpoint',
    title: 'Checkpoint a workflow session',
    description:
      'Mark the point a continueToken stands for and get a checkpointToken. workflow_continue accepts it wherever it accepts a continueToken and resumes from that point (the step current then) on a new branch — nothing of the other branch is lost.',
    inputSchema: {
      type: 'object',
      required: ['continueToken'],
      properties: { continueToken: token('The token of the point to mark.'), note: { type: 'string', maxLength: 2_000, description: 'Why this point matters.' } },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['sessionId', 'checkpointToken', 'step'],
      properties: { sessionId: { type: 'string' }, checkpointToken: { type: 'string' }, step: stepPointer, note: { type: 'string' } },
    },
    annotations: { ...writes, idempotentHint: false, title: 'Checkpoint a workflow session' },
    useCase: WorkflowTokens.CheckpointSession,
    plainMethod: true,
    module: 'workflow',
  },
  {
    name: 'workflow_resume',
    title: 'Resume a workflow session',
    description:
      'Find sessions to pick up again (new chat, after a crash): unfinished ones unless `status` says otherwise, ranked by same workspace (default your first MCP root) and branch, then `query` words in goal and notes, then recency. Each has a fresh continueToken, the current step and a recap of the notes.',
    inputSchema: {
      type: 'object',
      properties: {
        sessionId: { type: 'string', minLength: 1, maxLength: 64 },
        query: { type: 'string', maxLength: 2_000, description: 'Words to look for in goals and notes.' },
        workspacePath: { type: 'string', maxLength: 4_096 },
        gitBranch: { type: 'string', maxLength: 255 },
        status: statusFilter,
        limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Default 5.' },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['candidates'],
      properties: {
        candidates: {
          type: 'array',
          items: {
            type: 'object',
            required: ['sessionId', 'workflowId', 'status', 'continueToken', 'step', 'guidance', 'context', 'recap', 'workflow'],
            properties: {
              sessionId: { type: 'string' },
              workflowId: { type: 'string' },
              goal: { type: 'string' },
              status: statusEnum,
              workspacePath: { type: 'string' },
              gitBranch: { type: 'string' },
              updatedAt: { type: 'string' },
              reasons: { type: 'array', items: { type: 'string' } },
              continueToken: { type: 'string' },
              step: returnedStep,
              guidance: { type: 'object', properties: { prompt: { type: 'string' } } },
              context: { type: 'object' },
              recap: { type: 'array', items: { type: 'object', properties: { completionId: { type: 'string' }, title: { type: 'string' }, notes: { type: 'string' } } } },
              completedSteps: { type: 'integer' },
              workflow: workflowInfo,
            },
          },
        },
      },
    },
    annotations: { ...readOnly, title: 'Resume a workflow session' },
    useCase: WorkflowTokens.ResumeSessions,
    plainMethod: true,
    module: 'workflow',
  },
  {
    name: 'workflow_sessions',
    title: 'List workflow sessions',
    description: 'A page of sessions (id, workflow, goal, status, current step, times), most recently updated first. Filter by status, workflowId or workspacePath; pass nextCursor as cursor for the next page.',
    inputSchema: {
      type: 'object',
      properties: {
        status: statusFilter,
        workflowId: { type: 'string', maxLength: 255 },
        workspacePath: { type: 'string', maxLength: 4_096 },
        cursor: { type: 'string', maxLength: 32 },
        limit: { type: 'integer', minimum: 1, maximum: 500, description: 'Default 50.' },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['sessions', 'total'],
      properties: {
        sessions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['sessionId', 'workflowId', 'status', 'step', 'updatedAt'],
            properties: {
              sessionId: { type: 'string' },
              workflowId: { type: 'string' },
              workflowVersion: { type: 'string' },
              goal: { type: 'string' },
              status: statusEnum,
              step: stepPointer,
              workspacePath: { type: 'string' },
              gitBranch: { type: 'string' },
              createdAt: { type: 'string' },
              updatedAt: { type: 'string' },
              completedAt: { type: 'string' },
            },
          },
        },
        total: { type: 'integer' },
        nextCursor: { type: 'string' },
      },
    },
    annotations: { ...readOnly, title: 'List workflow sessions' },
    useCase: WorkflowTokens.ListSessions,
    plainMethod: true,
    module: 'workflow',
  },
  {
    name: 'workflow_session',
    title: 'Workflow session timeline',
    description: "A session's whole timeline for people and dashboards: every event (steps with their notes, blocked attempts, checkpoints, forks, resumes, completion) in order, the current state, and any log line that could not be read.",
    inputSchema: {
      type: 'object',
      required: ['sessionId'],
      properties: { sessionId: { type: 'string', minLength: 1, maxLength: 64 } },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      required: ['sessionId', 'workflow', 'status', 'step', 'events', 'damaged'],
      properties: {
        sessionId: { type: 'string' },
        workflow: workflowInfo,
        goal: { type: 'string' },
        workspacePath: { type: 'string' },
        gitBranch: { type: 'string' },
        status: statusEnum,
        step: stepPointer,
        completedSteps: { type: 'array', items: { type: 'string' } },
        context: { type: 'object' },
        createdAt: { type: 'string' },
        updatedAt: { type: 'string' },
        completedAt: { type: 'string' },
        forks: { type: 'integer' },
        checkpoints: { type: 'integer' },
        events: { type: 'array', items: { type: 'object', required: ['seq', 'kind', 'at'], properties: { seq: { type: 'integer' }, kind: { type: 'string' }, at: { type: 'string' } } } },
        damaged: { type: 'array', items: { type: 'object', properties: { line: { type: 'integer' }, excerpt: { type: 'string' }, reason: { type: 'string' } } } },
      },
    },
    annotations: { ...readOnly, title: 'Workflow session timeline' },
    useCase: WorkflowTokens.GetSessionTimeline,
    plainMethod: true,
    module: 'workflow',
  },
];
