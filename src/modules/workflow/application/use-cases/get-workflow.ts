import { InvalidArgumentsError } from '../../../../kernel/errors';
import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import type { Workflow } from '../../domain/types';
import type { CallContext } from '../../../../kernel/call-context';
import type { UseCase } from '../../../../kernel/use-case';
import type { WorkflowStorage } from '../ports/workflow-storage';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowGetSchemas, workflowNextSchemas } from '../workflow.tool-schemas';
import type { ReferenceChecker } from '../ports/reference-checker';
import { flagReferences, type ReferenceFlags } from '../services/reference-flags';
import { defaultWorkspace, WorkspaceWorkflows } from '../services/workspace-workflows';
import { firstStepNeedsContext } from '../../domain/guidance';

/** The tool's input, as its schema describes it. */
export type GetWorkflowInput = ToolInput<typeof workflowGetSchemas>;

/** The workflow without its steps, plus how many top-level steps it has. */
export type WorkflowMetadata = Omit<Workflow, 'steps'> & ReferenceFlags & {
  /** Number of top-level steps. */
  totalSteps: number;
};

export type WorkflowPreview = WorkflowMetadata & {
  /** The first step workflow_next would hand out with no completed steps and an empty context; null if none. */
  firstStep: (NonNullable<NextStepAnswer['step']> & { prompt: string }) | null;
  /** Why there is no firstStep although the workflow has steps (it needs context to resolve). */
  firstStepNote?: string;
};

/** workflow_next's answer, which the preview starts from. */
type NextStepAnswer = ToolOutput<typeof workflowNextSchemas>;
/** GetNextStep (workflow_next), as the preview calls it. */
type NextStep = UseCase<ToolInput<typeof workflowNextSchemas>, NextStepAnswer>;

/** workflow_get: the workflow, or (mode) its metadata, or its metadata plus the first eligible step. */
@injectable()
export class GetWorkflow implements UseCase<GetWorkflowInput, ToolOutput<typeof workflowGetSchemas>> {
  constructor(
    @inject(WorkflowTokens.WorkflowStorage) private readonly storage: WorkflowStorage,
    @inject(WorkflowTokens.GetNextStep) private readonly nextStep: NextStep,
    @inject(WorkflowTokens.ReferenceChecker, { isOptional: true }) private readonly references?: ReferenceChecker,
    @inject(WorkflowTokens.WorkspaceWorkflows, { isOptional: true }) private readonly workspaces?: WorkspaceWorkflows,
  ) {}

  async execute(input: GetWorkflowInput, ctx?: CallContext): Promise<(Workflow & ReferenceFlags) | WorkflowMetadata | WorkflowPreview> {
    const workspace = await defaultWorkspace(input.workspacePath, ctx);
    const catalog = this.workspaces ? await this.workspaces.catalogFor(workspace, ctx, 'workspacePath', false) : { storage: this.storage, warnings: [] };
    const located = await catalog.storage.locate(input.id);
    const { workflow, file } = located;
    const references = await flagReferences(this.references, workflow, file, workspace);
    const warnings = [...catalog.warnings, ...WorkspaceWorkflows.shadowWarning(located), ...(references.warnings ?? [])];
    const flags: ReferenceFlags = { ...references, ...(warnings.length > 0 ? { warnings } : {}) };
    if (input.mode === undefined) return { ...workflow, ...flags };
    const metadata: WorkflowMetadata = {
      id: workflow.id,
      name: workflow.name,
      description: workflow.description,
      version: workflow.version,
      ...(workflow.preconditions ? { preconditions: workflow.preconditions } : {}),
      ...(workflow.clarificationPrompts ? { clarificationPrompts: workflow.clarificationPrompts } : {}),
      ...(workflow.metaGuidance ? { metaGuidance: workflow.metaGuidance } : {}),
      ...currentMetadata(workflow),
      ...flags,
      totalSteps: workflow.steps.length,
    };
    if (input.mode === 'metadata') return metadata;
    try {
      const next = await this.nextStep.execute({ workflowId: workflow.id, completedSteps: [], context: {}, ...(workspace ? { workspacePath: workspace } : {}) }, ctx);
      // The preview shows the step with its agent-facing text (workflow_next carries that text in guidance.prompt).
      return { ...metadata, firstStep: next.step ? { ...next.step, prompt: next.guidance.prompt } : null };
    } catch (e) {
      // A first step that needs context (a forEach over a context array, a for with a context count) cannot be
      // previewed with an empty context: say so instead of failing the whole call.
      if (!(e instanceof InvalidArgumentsError)) throw e;
      return { ...metadata, firstStep: null, firstStepNote: firstStepNeedsContext(e.message) };
    }
  }


}

/** The current format's metadata, served as the file gives it (references are pointers: their content is never inlined). */
const CURRENT_METADATA = [
  'about',
  'examples',
  'recommendedPreferences',
  'validatedAgainstSpecVersion',
  'references',
  'functionDefinitions',
  'tags',
  'features',
  'assessments',
  'metricsProfile',
  'tips',
  'autoRecognitionPatterns',
  'modelTier',
] as const;

function currentMetadata(workflow: Workflow): Partial<Workflow> {
  if (workflow.format !== 'current') return {};
  const out: Record<string, unknown> = { format: 'current' };
  for (const key of CURRENT_METADATA) if (workflow[key] !== undefined) out[key] = workflow[key];
  return out as Partial<Workflow>;
}
