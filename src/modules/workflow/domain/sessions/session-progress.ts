import { isLoopStep, type Workflow, type WorkflowStep } from '../types';
import { WorkflowIndex } from '../workflow-index';

/** Where one top-level step of a session stands. */
export type StepProgressState = 'done' | 'current' | 'pending' | 'skipped';

export interface StepProgress {
  stepId: string;
  title: string;
  state: StepProgressState;
}

/**
 * How far a session is, counted over the workflow's top-level steps — the one number the dashboard's list, its session
 * page and `workflow_session` all show. A loop is one step: current while one of its iterations is handed out, done
 * once it is over (the next step has been reached, or the workflow is complete). A step passed over without being
 * done (its runCondition did not hold, a loop that ran no iteration) is `skipped` and counts in neither `done` nor
 * `total`, so a complete session is always `total` of `total`.
 */
export interface SessionProgress {
  done: number;
  total: number;
  skipped: number;
  steps: StepProgress[];
}

/** The progress of the node whose completed steps and current step are given (`current` null: the workflow is done). */
export function sessionProgress(workflow: Workflow, completedSteps: readonly string[], current: { completionId: string } | null): SessionProgress {
  const sequence = WorkflowIndex.of(workflow).sequence;
  const completed = new Set(completedSteps);
  const started = (step: WorkflowStep) => completed.has(step.id) || (isLoopStep(step) && completedSteps.some((c) => c.startsWith(`${step.id}[`)));
  const holds = (step: WorkflowStep, id: string) => id === step.id || (isLoopStep(step) && id.startsWith(`${step.id}[`));
  // Steps before the current one were either done or passed over; with no current step, every step is behind.
  const at = current ? sequence.findIndex((s) => holds(s, current.completionId)) : sequence.length;
  const steps = sequence.map((step, k): StepProgress => ({
    stepId: step.id,
    title: typeof step.title === 'string' && step.title !== '' ? step.title : step.id,
    state: k === at ? 'current' : started(step) ? 'done' : k < at ? 'skipped' : 'pending',
  }));
  const skipped = steps.filter((s) => s.state === 'skipped').length;
  return { done: steps.filter((s) => s.state === 'done').length, total: steps.length - skipped, skipped, steps };
}
