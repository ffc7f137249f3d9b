import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { InvalidArgumentsError } from '../../../../kernel/errors';
import { isPlainObject } from '../../domain/context-path';
import { buildCompletionGuidance, buildStepGuidance } from '../../domain/guidance';
import { resolveNextStep, type ResolvedStep } from '../../domain/step-resolution';
import { completionIdPatterns, unknownCompletionIds } from '../../domain/completion-id-check';
import type { Workflow } from '../../domain/types';
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

/**
 * The step as the answer carries it: the structured fields an agent acts on. Its text (role, prompt, guidance) is in
 * `guidance.prompt` only, so every answer carries it once.
 */
export interface StepAnswer {
  id: string;
  title: string;
  /** Append exactly this to `completedSteps` when the step is done. */
  completionId: string;
  loop?: ResolvedStep['loop'];
  askForFiles?: boolean;
  requireConfirmation?: boolean;
  /** The step has validationCriteria: check the output with workflow_validate. */
  hasValidation?: boolean;
}

export interface GetNextStepOutput {
  /** The next step, or null when the workflow is complete. */
  step: StepAnswer | null;
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
    assertKnownCompletionIds(workflow, completed);
    const result = resolveNextStep(workflow, completed, input.context ?? {}, this.conditions.asFunction);
    const prompt = result.step ? buildStepGuidance(result.step, result.notes) : buildCompletionGuidance(workflow, result.notes);
    return { step: result.step ? stepAnswer(result.step) : null, guidance: { prompt }, isComplete: result.isComplete, context: result.context };
  }
}

/**
 * @throws InvalidArgumentsError naming the completion ids that name no step of the workflow and listing the valid
 *   ones: an ignored typo would silently hand out the same step again.
 */
function assertKnownCompletionIds(workflow: Workflow, completed: readonly string[]): void {
  const unknown = unknownCompletionIds(workflow, completed);
  if (unknown.length === 0) return;
  const valid = completionIdPatterns(workflow);
  const shown = valid.length > 40 ? `${valid.slice(0, 40).join(', ')}, … (${valid.length - 40} more)` : valid.join(', ');
  throw new InvalidArgumentsError(
    `completedSteps has unknown completionId${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')} for workflow '${workflow.id}'; valid completionIds (i = iteration from 0): ${shown}`,
    'completedSteps',
  );
}

function stepAnswer(step: ResolvedStep): StepAnswer {
  const answer: StepAnswer = { id: step.id, title: step.title, completionId: step.completionId };
  if (step.loop) answer.loop = step.loop;
  if (step.askForFiles) answer.askForFiles = true;
  if (step.requireConfirmation === true) answer.requireConfirmation = true;
  if (step.validationCriteria !== undefined) answer.hasValidation = true;
  return answer;
}
