import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { InvalidArgumentsError, NotFoundError } from '../../../../kernel/errors';
import { isPlainObject } from '../../domain/context-path';
import { contextForLookup, findStep } from '../../domain/step-lookup';
import { isLoopStep } from '../../domain/types';
import type { UseCase } from '../../../../kernel/use-case';
import type { CallContext } from '../../../../kernel/call-context';
import { WorkspaceWorkflows } from '../services/workspace-workflows';
import type { WorkflowStorage } from '../ports/workflow-storage';
import { ValidationEngine, type ValidationResult } from '../services/validation-engine';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowValidateSchemas } from '../workflow.tool-schemas';

/** The tool's input, as its schema describes it. */
export type ValidateStepOutputInput = ToolInput<typeof workflowValidateSchemas>;

/** workflow_validate: checks an agent's output against the step's validationCriteria. */
@injectable()
export class ValidateStepOutput implements UseCase<ValidateStepOutputInput, ToolOutput<typeof workflowValidateSchemas>> {
  constructor(
    @inject(WorkflowTokens.WorkflowStorage) private readonly storage: WorkflowStorage,
    @inject(WorkflowTokens.ValidationEngine) private readonly engine: ValidationEngine,
    @inject(WorkflowTokens.WorkspaceWorkflows, { isOptional: true }) private readonly workspaces?: WorkspaceWorkflows,
  ) {}

  /**
   * A step without validationCriteria (a loop step included) is valid.
   * @throws NotFoundError naming the step and workflow when there is no such step; NotFoundError / InvalidWorkflowError
   *   from storage.
   */
  async execute(input: ValidateStepOutputInput, ctx?: CallContext): Promise<ValidationResult> {
    if (input.context !== undefined && input.context !== null && !isPlainObject(input.context)) {
      throw new InvalidArgumentsError('context must be an object', 'context');
    }
    const storage = this.workspaces ? (await this.workspaces.storageFor(input.workspacePath, ctx)).storage : this.storage;
    const workflow = await storage.get(input.workflowId);
    const lookup = findStep(workflow, input.stepId);
    if (!lookup) {
      throw new NotFoundError(
        'step',
        input.stepId,
        `step '${input.stepId}' not found in workflow '${workflow.id}'; expected a step id or a completionId from workflow_next`,
      );
    }
    if (isLoopStep(lookup.step)) return { valid: true, issues: [], suggestions: [] };
    const context = contextForLookup(lookup, input.context ?? {});
    return this.engine.validate(lookup.step.validationCriteria, input.output, context);
  }
}
