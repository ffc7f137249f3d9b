import { ConditionEvaluator } from '../../../../src/modules/workflow/application/services/condition-evaluator';
import { resolveNextStep, type NextStepResult } from '../../../../src/modules/workflow/domain/step-resolution';
import type { LoopStep, Workflow, WorkflowStep } from '../../../../src/modules/workflow/domain/types';

export const evaluate = new ConditionEvaluator().asFunction;

export function next(workflow: Workflow, completed: string[], context: Record<string, unknown> = {}): NextStepResult {
  return resolveNextStep(workflow, completed, context, evaluate);
}

export function workflowOf(steps: WorkflowStep[]): Workflow {
  return { id: 'test', name: 'Test', description: 'test workflow', version: '1.0.0', steps };
}

export function prompt(id: string, extra: Partial<WorkflowStep> = {}): WorkflowStep {
  return { id, title: `Title ${id}`, prompt: `Do ${id}`, ...extra } as WorkflowStep;
}

export function loop(id: string, config: LoopStep['loop'], body: LoopStep['body'], extra: Partial<LoopStep> = {}): LoopStep {
  return { id, type: 'loop', title: `Loop ${id}`, loop: config, body, ...extra };
}

/**
 * Walks a workflow to completion the way an agent does: take the step, let `act` change the context, append the
 * completion id, send the returned context back. Returns the completion ids in order.
 */
export function walk(
  workflow: Workflow,
  context: Record<string, unknown> = {},
  act: (result: NextStepResult, ctx: Record<string, unknown>) => Record<string, unknown> = (_r, c) => c,
  limit = 500,
): { ids: string[]; results: NextStepResult[]; final: NextStepResult } {
  const completed: string[] = [];
  const results: NextStepResult[] = [];
  let ctx = context;
  for (let n = 0; n < limit; n++) {
    const result = next(workflow, completed, ctx);
    if (result.isComplete) return { ids: completed, results, final: result };
    results.push(result);
    ctx = act(result, { ...result.context });
    completed.push(result.step!.completionId);
  }
  throw new Error(`workflow did not complete within ${limit} steps: ${completed.join(', ')}`);
}
