import { toolSchemas } from '../../../kernel/tools/tool-schema';
import { previewStep, returnedStep, stepBlocker, stepGuidance, verificationOutcome } from './workflow-step.schemas';

/**
 * The input and output schemas of the workflow module's stateless tools, each written once: workflow.tools.ts declares
 * the tools with them and the use cases take their input and output types from them (ToolInput / ToolOutput). The
 * step they answer with is declared in workflow-step.schemas.ts.
 */

const stringList = { type: 'array', items: { type: 'string' } } as const;

/** Ids are not pattern-checked here: `workflow_get` of an invalid file's id must say why it is invalid. */
const workflowId = { type: 'string', minLength: 1, maxLength: 255 } as const;

/** The folder a stateless call works in: its own workflows (source workspace) are served too. */
const workspacePath = {
  type: 'string',
  maxLength: 4_096,
  description: "The folder you work in (default your first MCP root): its .workrail/workflows and .workgraph/workflows are served too.",
} as const;

const contextObject = {
  type: 'object',
  description: 'Variables for runCondition, loops and {{var}} placeholders. Send back the context workflow_next returned, plus your own variables.',
} as const;

/** workflow_next's blocker: the shared fields, with what code and pointer look like. */
const blocker = {
  ...stepBlocker,
  properties: {
    ...stepBlocker.properties,
    code: { ...stepBlocker.properties.code, description: 'Stable code, e.g. contract_artifact_missing, contract_artifact_invalid, assessment_level_invalid.' },
    pointer: { ...stepBlocker.properties.pointer, description: 'JSON pointer into this call (e.g. /output/artifacts/0/decision).' },
    expected: { ...stepBlocker.properties.expected, description: 'The expected shape: an example artifact, or the allowed levels.' },
  },
} as const;

const workflowSummary = {
  type: 'object',
  required: ['id', 'name', 'description', 'version', 'source'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string' },
    source: { type: 'string', description: 'Where it came from: bundled, project, env, flag or workspace.' },
    format: { const: 'current', description: "Present for WorkRail's current format." },
    tags: stringList,
    about: { type: 'string' },
    shadows: { type: 'string', description: 'The source of the workflow of the same id this one replaces.' },
  },
} as const;

const invalidEntry = {
  type: 'object',
  required: ['id', 'file', 'reason'],
  properties: {
    id: { type: 'string' },
    file: { type: 'string' },
    source: { type: 'string' },
    reason: { type: 'string' },
  },
} as const;

export const workflowListSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      workspacePath: {
        type: 'string',
        minLength: 1,
        maxLength: 4_096,
        description: "Also list this folder's .workrail/workflows and .workgraph/workflows (source workspace); it must be inside your roots.",
      },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['workflows', 'invalid'],
    properties: {
      workflows: { type: 'array', items: workflowSummary },
      invalid: { type: 'array', items: invalidEntry },
      warnings: { type: 'array', items: { type: 'string' }, description: "Workspace workflows that shadow another source's." },
    },
  },
});

export const workflowGetSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['id'],
    properties: {
      id: { ...workflowId, description: 'Workflow id, as workflow_list shows it.' },
      mode: { enum: ['metadata', 'preview'], description: 'Omit for the whole workflow.' },
      workspacePath: { ...workspacePath, description: "Default your first MCP root: its own workflows are served, and `workspace` references resolve there." },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['id', 'name', 'description', 'version'],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      description: { type: 'string' },
      version: { type: 'string' },
      preconditions: stringList,
      clarificationPrompts: stringList,
      metaGuidance: stringList,
      steps: { type: 'array', items: { type: 'object' }, description: 'The steps (whole workflow only).' },
      totalSteps: { type: 'integer', description: 'Number of top-level steps (metadata and preview).' },
      format: { const: 'current', description: "Current-format workflows (metadata and preview): about, examples, recommendedPreferences, references, tags… follow." },
      firstStep: { anyOf: [previewStep, { type: 'null' }], description: 'The first step to do (preview only).' },
      firstStepNote: { type: 'string', description: 'Why firstStep is null although the workflow has steps (preview only).' },
      referenceStatus: {
        type: 'array',
        description: 'Each reference: resolved path, and found (absent: not checked). Content is never inlined.',
        items: { type: 'object', properties: { id: { type: 'string' }, resolveFrom: { type: 'string' }, path: { type: 'string' }, found: { type: 'boolean' } } },
      },
      warnings: { ...stringList, description: 'Missing references; a workspace workflow shadowing another source.' },
    },
  },
});

export const workflowNextSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['workflowId', 'completedSteps'],
    properties: {
      workflowId: workflowId,
      completedSteps: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        description: 'completionIds of the steps done so far (a step id, or loopId[i].stepId inside loops).',
      },
      context: contextObject,
      workspacePath: { ...workspacePath, description: 'The folder you work in (default your first MCP root): its own workflows are served, and the server runs verification commands there (run scope).' },
      output: {
        type: 'object',
        description:
          "Current-format workflows: the output of the step being completed (the last completionId of completedSteps): notes and artifacts (its outputContract's artifact, wr.assessment artifacts).",
        properties: { notesMarkdown: { type: 'string' }, artifacts: { type: 'array', items: { type: 'object' } } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['step', 'guidance', 'isComplete', 'context'],
    properties: {
      step: { anyOf: [returnedStep, { type: 'null' }] },
      guidance: stepGuidance,
      isComplete: { type: 'boolean' },
      context: { type: 'object', description: 'Send this back unchanged (with your own variables added) on the next call.' },
      blocked: { type: 'boolean', description: 'The output fell short: step is the same step; keep its completionId last and resend output fixed.' },
      blockers: { type: 'array', items: blocker },
      contractSchema: { type: 'object', description: "With a blocked contract artifact: the contract's JSON Schema." },
      followup: { type: 'string', description: 'An assessment asked for a follow-up: step is the same step, to be done again with this guidance.' },
      verification: verificationOutcome,
      sentBack: {
        type: 'object',
        required: ['to', 'removeFromCompletedSteps', 'note'],
        description: 'An audit rated the audited step below its bar: step is that step again; remove these completionIds first.',
        properties: { to: { type: 'string' }, removeFromCompletedSteps: { type: 'array', items: { type: 'string' } }, note: { type: 'string' } },
      },
    },
  },
});

export const workflowValidateSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['workflowId', 'stepId', 'output'],
    properties: {
      workflowId: workflowId,
      stepId: { type: 'string', minLength: 1, maxLength: 1024, description: 'Step id or completionId.' },
      output: {
        description: 'The output to check: text, or JSON (as text, a ```json fence allowed, or as a JSON value) for schema rules.',
      },
      context: { ...contextObject, description: 'Context for rule conditions.' },
      workspacePath,
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['valid', 'issues', 'suggestions'],
    properties: { valid: { type: 'boolean' }, issues: stringList, suggestions: stringList },
  },
});

export const workflowValidateJsonSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    required: ['workflowJson'],
    properties: { workflowJson: { type: 'string', description: 'The whole workflow file as text.' } },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['valid', 'issues', 'suggestions'],
    properties: {
      valid: { type: 'boolean' },
      issues: {
        type: 'array',
        items: {
          type: 'object',
          required: ['path', 'line', 'column', 'message'],
          properties: {
            path: { type: 'string', description: 'JSON pointer of the value at fault ("" for the whole document).' },
            line: { type: 'integer', minimum: 1 },
            column: { type: 'integer', minimum: 1 },
            message: { type: 'string' },
          },
        },
      },
      suggestions: stringList,
      format: { enum: ['classic', 'current'], description: 'The format the file was read as.' },
      formatReason: { type: 'string', description: 'Why: a dotted id, or the first current-format field found.' },
      warnings: {
        type: 'array',
        items: { type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' }, message: { type: 'string' } } },
        description: 'Not errors: conditions that would evaluate differently under the other format.',
      },
    },
  },
});

export const workflowGetSchemaSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: { contract: { type: 'string', description: 'wr.contracts.<name> or wr.assessment; omit for the workflow schema.' } },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    required: ['schema'],
    properties: { schema: { type: 'object' } },
  },
});
