import { toolSchemas } from '../../../kernel/tools/tool-schema';
import { sessionStep, stepBlocker, stepGuidance } from './workflow-step.schemas';

/**
 * The input and output schemas of the durable-session tools (docs/sessions.md), each written once:
 * workflow-session.tools.ts declares the tools with them and the session use cases take their types from them.
 */

/** A session token argument. */
const token = <const D extends string>(description: D) => ({ type: 'string', minLength: 1, maxLength: 64, description }) as const;
const statusEnum = { enum: ['active', 'needs_attention', 'complete'] } as const;

const statusFilter = {
  anyOf: [statusEnum, { type: 'array', items: statusEnum, minItems: 1 }],
  description: 'Session status(es) to include.',
} as const;

const stepPointer = {
  anyOf: [
    { type: 'object', required: ['completionId', 'stepId', 'title'], properties: { completionId: { type: 'string' }, stepId: { type: 'string' }, title: { type: 'string' } } },
    { type: 'null' },
  ],
} as const;

const workflowInfo = {
  type: 'object',
  required: ['id', 'version', 'hash', 'newerVersionAvailable'],
  properties: {
    id: { type: 'string' },
    version: { type: 'string' },
    hash: { type: 'string', description: 'sha256 of the workflow the session is pinned to.' },
    newerVersionAvailable: { type: 'boolean', description: 'The workflow file changed since the session started; the session keeps its version.' },
    note: { type: 'string' },
  },
} as const;

/** The session tools' blocker: the shared fields; `expected` also covers a validation rule's suggestion. */
/** How far a session is (domain/sessions/session-progress.ts): the same counts wherever a session is shown. */
const progressCounts = {
  done: { type: 'integer', description: 'Top-level steps done; a loop is one step, done once the loop is over.' },
  total: { type: 'integer', description: 'Top-level steps, less those passed over (a runCondition that did not hold): a complete session is total of total.' },
  skipped: { type: 'integer', description: 'Top-level steps passed over without being done.' },
} as const;
const progressSummary = { type: 'object', required: ['done', 'total', 'skipped'], properties: progressCounts } as const;
const progressDetail = {
  type: 'object',
  required: ['done', 'total', 'skipped', 'steps'],
  properties: {
    ...progressCounts,
    steps: {
      type: 'array',
      description: "The workflow's top-level steps in order, each done, current, pending or skipped.",
      items: {
        type: 'object',
        required: ['stepId', 'title', 'state'],
        properties: { stepId: { type: 'string' }, title: { type: 'string' }, state: { enum: ['done', 'current', 'pending', 'skipped'] } },
      },
    },
  },
} as const;

const blocker = {
  ...stepBlocker,
  properties: {
    ...stepBlocker.properties,
    expected: { ...stepBlocker.properties.expected, description: "The expected shape or value: an example artifact, the allowed levels, or the rule's suggestion." },
  },
} as const;

const contextObject = { type: 'object', description: 'Variables merged (shallow) into the session context; send only what changed.' } as const;

const sessionAnswer = {
  type: 'object',
  required: ['status', 'sessionId', 'continueToken', 'step', 'guidance', 'isComplete', 'context', 'sessionStatus', 'workflow'],
  properties: {
    status: { enum: ['started', 'advanced', 'blocked', 'complete', 'running'] },
    sessionId: { type: 'string' },
    continueToken: { type: 'string', description: 'Send with the next workflow_continue.' },
    checkpointToken: { type: 'string', description: 'workflow_start: a checkpoint at the very beginning.' },
    retryToken: { type: 'string', description: 'blocked: send the corrected output with this token.' },
    step: sessionStep,
    guidance: stepGuidance,
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
    warnings: { type: 'array', items: { type: 'string' }, description: "workflow_start: the workflow's missing references (workspace ones against workspacePath); a workspace workflow shadowing another source's." },
    replayed: { type: 'boolean', description: 'This exact call was made before; answered as then, nothing new recorded.' },
    // The same shapes as workflow_next's (verificationOutcome, sentBack), left open here to keep tools/list small.
    verification: { type: 'object', description: "The verification of the step just completed: workflow_next's verification object." },
    sentBack: { type: 'object', description: 'An audit sent the session back to the audited step: {to, note} (a fork; the old branch is kept).' },
  },
} as const;

export const workflowStartSchemas = toolSchemas({
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
});

export const workflowContinueSchemas = toolSchemas({
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
      waitSeconds: { type: 'integer', minimum: 0, maximum: 3600, description: 'A verification the server runs: answer running after this many seconds (45); then call again.' },
    },
    additionalProperties: false,
  },
  outputSchema: sessionAnswer,
});

export const workflowCheckpointSchemas = toolSchemas({
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
});

export const workflowResumeSchemas = toolSchemas({
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
            step: sessionStep,
            guidance: { type: stepGuidance.type, properties: stepGuidance.properties },
            context: { type: 'object' },
            recap: { type: 'array', items: { type: 'object', properties: { completionId: { type: 'string' }, title: { type: 'string' }, notes: { type: 'string' } } } },
            completedSteps: { type: 'integer' },
            workflow: workflowInfo,
          },
        },
      },
    },
  },
});

export const workflowSessionsSchemas = toolSchemas({
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
            progress: progressSummary,
          },
        },
      },
      total: { type: 'integer' },
      nextCursor: { type: 'string' },
    },
  },
});

export const workflowSessionSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['sessionId'],
    properties: {
      sessionId: { type: 'string', minLength: 1, maxLength: 64 },
      cursor: { type: 'string', pattern: '^[0-9]{1,12}$', description: "The last page's nextCursor." },
      limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200, description: 'Events per page (default 200).' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['sessionId', 'workflow', 'status', 'step', 'events', 'damaged', 'totalEvents'],
    properties: {
      sessionId: { type: 'string' },
      workflow: workflowInfo,
      goal: { type: 'string' },
      workspacePath: { type: 'string' },
      gitBranch: { type: 'string' },
      status: statusEnum,
      step: stepPointer,
      completedSteps: { type: 'array', items: { type: 'string' } },
      progress: progressDetail,
      context: { type: 'object' },
      createdAt: { type: 'string' },
      updatedAt: { type: 'string' },
      completedAt: { type: 'string' },
      forks: { type: 'integer' },
      checkpoints: { type: 'integer' },
      events: { type: 'array', items: { type: 'object', required: ['seq', 'kind', 'at'], properties: { seq: { type: 'integer' }, kind: { type: 'string' }, at: { type: 'string' } } } },
      totalEvents: { type: 'integer', description: 'Events in the whole timeline.' },
      nextCursor: { type: 'string', description: 'Present when more events follow: pass it as cursor for the next page.' },
      damaged: { type: 'array', items: { type: 'object', properties: { line: { type: 'integer' }, excerpt: { type: 'string' }, reason: { type: 'string' } } } },
    },
  },
});
