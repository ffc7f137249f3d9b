import { parseCompletionId } from './completion-id';
import { maxIterationsOf } from './loop-runtime';
import { isLoopStep, type Workflow, type WorkflowStep } from './types';
import { WorkflowIndex } from './workflow-index';

/**
 * Which completion ids a workflow can hand out, so workflow_next can refuse the others instead of ignoring a typo
 * (`["scoop"]`) and answering as if nothing were done.
 */

/**
 * The completion ids in `completed` that name no step of the workflow: a plain id must be a step (or loop) of the
 * top-level sequence; `loop[i].step` must name a loop of that sequence, an iteration below its maxIterations and a
 * step of its body (nested loops alike).
 */
export function unknownCompletionIds(workflow: Workflow, completed: readonly string[]): string[] {
  const index = WorkflowIndex.of(workflow);
  return completed.filter((id) => !isKnown(workflow, index, id));
}

/**
 * The completion ids of the workflow as patterns, for the error message: `scope`, `review-loop[i].check`, … (`i` the
 * iteration counted from 0).
 */
export function completionIdPatterns(workflow: Workflow): string[] {
  const index = WorkflowIndex.of(workflow);
  const out: string[] = [];
  const visit = (steps: readonly WorkflowStep[], prefix: string, depth: number): void => {
    for (const step of steps) {
      out.push(prefix + step.id);
      if (isLoopStep(step) && depth < 8) visit(index.bodyOf(step), `${prefix}${step.id}[${'ijklmn'[depth] ?? 'i'}].`, depth + 1);
    }
  };
  visit(index.sequence, '', 0);
  return out;
}

function isKnown(workflow: Workflow, index: WorkflowIndex, id: string): boolean {
  const parsed = parseCompletionId(id);
  if (!parsed) return false;
  let steps: readonly WorkflowStep[] = index.sequence;
  for (const segment of parsed.loops) {
    const loop = steps.find((s) => s.id === segment.loopId);
    if (!loop || !isLoopStep(loop)) return false;
    if (segment.iteration >= maxIterationsOf(workflow.id, loop)) return false;
    steps = index.bodyOf(loop);
  }
  return steps.some((s) => s.id === parsed.stepId);
}
