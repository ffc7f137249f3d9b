import { WorkflowTokens } from './application/workflow.tokens';
import { defineTool, type ToolAnnotations, type ToolDefinition } from '../../kernel/tools/tool-definition';
import {
  workflowGetSchemaSchemas,
  workflowGetSchemas,
  workflowListSchemas,
  workflowNextSchemas,
  workflowValidateJsonSchemas,
  workflowValidateSchemas,
} from './application/workflow.tool-schemas';
import { workflowSessionTools } from './workflow-session.tools';

/**
 * The workflow module's tools (docs/writing-workflows.md; contracts in spec/mcp-api.md). The first six are read-only and idempotent: workflow_next is a pure
 * function of (workflow, completedSteps, context); nothing is stored between calls. The session tools
 * (workflow-session.tools.ts) keep a run on the server. All are also plain JSON-RPC methods.
 */

const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const workflowTools: ToolDefinition[] = [
  defineTool({
    name: 'workflow_list',
    title: 'List workflows',
    description:
      'List the guided workflows available (id, name, description, version, source). With `workspacePath`, also that folder\'s own .workrail/workflows and .workgraph/workflows (source workspace, shadowing others by id). Workflow files that failed to load are listed under `invalid` with the file and the reason.',
    ...workflowListSchemas,
    annotations: { ...readOnly, title: 'List workflows' },
    useCase: WorkflowTokens.ListWorkflows,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_get',
    title: 'Get a workflow',
    description:
      'Get a workflow by id. Without `mode`: the whole workflow. `mode: "metadata"`: name, description, preconditions, clarification prompts and guidance without the steps. `mode: "preview"`: the metadata plus the first step to do.',
    ...workflowGetSchemas,
    annotations: { ...readOnly, title: 'Get a workflow' },
    useCase: WorkflowTokens.GetWorkflow,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_next',
    title: 'Next workflow step',
    description:
      'Next step of a workflow. Stateless: send every completionId done in `completedSteps` ([] to start) and the last returned `context` plus your own variables; a current-format step with outputContract or assessments also takes its `output`. Answers the step (its text in guidance.prompt), `isComplete`, or `blocked` with `blockers`.',
    ...workflowNextSchemas,
    annotations: { ...readOnly, title: 'Next workflow step' },
    useCase: WorkflowTokens.GetNextStep,
    plainMethod: true,
    module: 'workflow',
    // A call that runs a verification command becomes a task (tasks extension) right before the command starts; any
    // other call answers directly (docs/protocol-eras.md "Tasks").
    longRunning: { promoted: true },
  }),
  defineTool({
    name: 'workflow_validate',
    title: 'Validate step output',
    description:
      "Check your output for a step against the step's validationCriteria. `stepId` may be the step id or the completionId workflow_next gave. Returns whether it passes, every issue, and suggestions to fix them.",
    ...workflowValidateSchemas,
    annotations: { ...readOnly, title: 'Validate step output' },
    useCase: WorkflowTokens.ValidateStepOutput,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_validate_json',
    title: 'Validate workflow JSON',
    description:
      "Check a workflow file's text, classic or current format: strict JSON syntax, the schema, structure (unique step ids, loop bodies), refs, features, contracts, templateCall routines. Each issue has a JSON pointer, 1-based line and column, and a message; says which format it read.",
    ...workflowValidateJsonSchemas,
    annotations: { ...readOnly, title: 'Validate workflow JSON' },
    useCase: WorkflowTokens.ValidateWorkflowJson,
    plainMethod: true,
    module: 'workflow',
  }),
  defineTool({
    name: 'workflow_get_schema',
    title: 'Workflow JSON Schema',
    description:
      'Get the JSON Schema workflow files must satisfy (spec/workflow.schema.json, both formats), to write or fix a workflow; or with `contract` the schema of an output contract (`wr.contracts.<name>`) or of the assessment artifact (`wr.assessment`).',
    ...workflowGetSchemaSchemas,
    annotations: { ...readOnly, title: 'Workflow JSON Schema' },
    useCase: WorkflowTokens.GetWorkflowSchema,
    plainMethod: true,
    module: 'workflow',
  }),
  ...workflowSessionTools,
];

