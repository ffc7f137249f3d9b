import { readPath } from './context-path';
import { parseCompletionId } from './completion-id';
import { loopBindings } from './loop-runtime';
import { isLoopStep, type LoopStep, type Workflow, type WorkflowStep } from './types';
import { forEachStep, WorkflowIndex } from './workflow-index';

export interface StepLookup {
  step: WorkflowStep;
  /** The loops around the step with their iterations, outermost first (empty for a plain step id). */
  loops: { loop: LoopStep; iteration: number }[];
}

/**
 * Finds a step by its id or by a completion id (`outer[0].inner[2].step`). A plain id is searched everywhere, inline
 * loop bodies included (ids are unique in a valid workflow). A completion id must follow the loop structure: each
 * segment a loop, each next segment in that loop's body. Returns undefined when there is no such step.
 */
export function findStep(workflow: Workflow, ref: string): StepLookup | undefined {
  const parsed = parseCompletionId(ref);
  if (!parsed) return undefined;
  if (parsed.loops.length === 0) {
    let found: WorkflowStep | undefined;
    forEachStep(Array.isArray(workflow.steps) ? workflow.steps : [], (step) => {
      if (!found && step.id === ref) found = step;
    });
    return found ? { step: found, loops: [] } : undefined;
  }
  const index = WorkflowIndex.of(workflow);
  const loops: StepLookup['loops'] = [];
  let candidates: readonly WorkflowStep[] = workflow.steps;
  for (const segment of parsed.loops) {
    const loop = candidates.find((s) => s.id === segment.loopId);
    if (!loop || !isLoopStep(loop)) return undefined;
    if (Number.isInteger(loop.loop?.maxIterations) && segment.iteration >= loop.loop.maxIterations) return undefined;
    loops.push({ loop, iteration: segment.iteration });
    try {
      candidates = index.bodyOf(loop);
    } catch {
      return undefined;
    }
  }
  const step = candidates.find((s) => s.id === parsed.stepId);
  return step ? { step, loops } : undefined;
}

/**
 * The loop variables in force for a looked-up step, bound over `context` (forEach items read from it when present),
 * so conditions of the step's validation rules see the same values workflow_next gave the agent.
 */
export function contextForLookup(lookup: StepLookup, context: Record<string, unknown>): Record<string, unknown> {
  let ctx = context;
  for (const { loop, iteration } of lookup.loops) {
    let item: { value: unknown } | undefined;
    if (loop.loop.type === 'forEach' && typeof loop.loop.items === 'string') {
      const items = readPath(ctx, loop.loop.items);
      if (Array.isArray(items) && iteration < items.length) item = { value: items[iteration] };
    }
    ctx = { ...ctx, ...loopBindings(loop, iteration, item) };
  }
  return ctx;
}
