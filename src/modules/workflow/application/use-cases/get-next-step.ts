import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { InvalidArgumentsError } from '../../../../kernel/errors';
import { isPlainObject } from '../../domain/context-path';
import { buildCompletionGuidance, buildStepGuidance } from '../../domain/guidance';
import { resolveNextStep, type ResolvedStep } from '../../domain/step-resolution';
import type { UseCase } from '../../../../kernel/use-case';
import type { WorkflowStorage } from '../ports/workflow-storage';
import { ConditionEvaluator } from '../services/condition-evaluator';

export interface GetNextStepInput {
  workflowId: string;
  /** Completion ids of the steps done so far (step ids outside loops, `loop[i].step` inside). */
  completedSteps: string[];
  /** The agent's variables; the returned context can be sent back unchanged. Default `{}`. */
  context?: Record<string, unknown>;
}

export interface GetNextStepOutput {
  /** The next step, or null when the workflow is complete. */
  step: ResolvedStep | null;
  guidance: { prompt: string };
  isComplete: boolean;
  context: Record<string, unknown>;
}

/** workflow_next: the next step of a workflow, a pure function of (workflow, completedSteps, context). */
@injectable()
export class GetNextStep implements UseCase<GetNextStepInput, GetNextStepOutput> {
  constructor(
    @inject(WorkflowTokens.WorkflowStorage) private readonly storage: WorkflowStorage,
    @inject(WorkflowTokens.ConditionEvaluator) private readonly conditions: ConditionEvaluator,
  ) {}

  /**
   * @throws NotFoundError / InvalidWorkflowError from storage; InvalidArgumentsError when completedSteps is not a
   *   list of strings or a loop needs a context variable (forEach items, for count) that is missing.
   */
  async execute(input: GetNextStepInput): Promise<GetNextStepOutput> {
    const completed = input.completedSteps ?? [];
    if (!Array.isArray(completed) || completed.some((c) => typeof c !== 'string')) {
      throw new InvalidArgumentsError('completedSteps must be an array of completion id strings', 'completedSteps');
    }
    if (input.context !== undefined && input.context !== null && !isPlainObject(input.context)) {
      throw new InvalidArgumentsError('context must be an object', 'context');
    }
    const workflow = await this.storage.get(input.workflowId);
    const result = resolveNextStep(workflow, completed, input.context ?? {}, this.conditions.asFunction);
    const prompt = result.step ? buildStepGuidance(result.step, result.notes) : buildCompletionGuidance(workflow, result.notes);
    return { step: result.step, guidance: { prompt }, isComplete: result.isComplete, context: result.context };
  }
}
