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
 * The workflow module's tools (DESIGN.md §2). The first six are read-only and idempotent: workflow_next is a pure
 * function of (workflow, completedSteps, context); nothing is stored between calls. The session tools
 * (workflow-session.tools.ts) keep a run on the server. All are also plain JSON-RPC methods.
 */

const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const workflowTools: ToolDefinition[] = [
  defineTool({
    name: 'workflow_list',
    title: 'List workflows',
    description:
      'List the guided workflows available (id, name, description, version, source). Workflow files that failed to load are listed under `invalid` with the file and the reason.',
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
      'Get the next step of a workflow. Stateless: send every completionId you have finished in `completedSteps` (start with []) and the `context` returned last time (plus your own variables, which conditions and loops read); for current-format workflows also the finished step\'s `output` when step.outputContract or step.assessments ask for one. Returns the step with its text once, in `guidance.prompt`, or `isComplete: true` when nothing is left; `blocked` with `blockers` when the output falls short.',
    ...workflowNextSchemas,
    annotations: { ...readOnly, title: 'Next workflow step' },
    useCase: WorkflowTokens.GetNextStep,
    plainMethod: true,
    module: 'workflow',
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
      'Check the text of a workflow file, classic or current format: JSON syntax (strict JSON: no comments or trailing commas), the workflow schema and the structure (unique step ids, loop bodies naming real steps, refs, features, contracts). Each issue has a JSON pointer path, a 1-based line and column, and a message; says which format it read.',
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

