import type { ResolvedStep } from './step-resolution';
import type { Workflow } from './types';

/**
 * The `guidance.prompt` of workflow_next: markdown with one heading per part, in this order — `## Role` (when the
 * step has an agentRole), `## Task: <title>` (the prompt), `## Guidance` (the step's guidance list), `## Note` (loop
 * caps reached on the way), and `## When done` (what to append to completedSteps, and confirmations asked for).
 */
export function buildStepGuidance(step: ResolvedStep, notes: readonly string[] = [], more: StepGuidanceExtras = {}): string {
  const parts: string[] = [];
  if (more.followup) parts.push(`## Follow-up required\n${more.followup.trim()}\nDo the step again with this in mind, then send a new output for it.`);
  if (step.agentRole && step.agentRole.trim() !== '') parts.push(`## Role\n${step.agentRole.trim()}`);
  let task = `## Task: ${step.title}`;
  if (step.loop) task += `\n_${describeLoop(step.loop)}_`;
  parts.push(`${task}\n${(step.extras?.prompt ?? step.prompt).trim()}`);
  if (step.guidance && step.guidance.length > 0) parts.push(`## Guidance\n${step.guidance.map((g) => `- ${g}`).join('\n')}`);
  parts.push(...(more.sections ?? []));
  if (notes.length > 0) parts.push(`## Note\n${notes.map((n) => `- ${n}`).join('\n')}`);
  const done: string[] = [];
  if (step.askForFiles) done.push('- Ask the user for any files you need before you start.');
  const confirmation = step.extras ? step.extras.confirmation : step.requireConfirmation === true ? { by: 'user' } : undefined;
  if (confirmation?.by === 'coordinator') done.push('- Hand the result to the coordinating agent and wait for its verdict before you mark the step done.');
  else if (confirmation) done.push('- Ask the user to confirm the result before you mark the step done.');
  if (step.validationCriteria !== undefined) {
    done.push(`- Check your output with workflow_validate (stepId "${step.completionId}") before moving on.`);
  }
  done.push(
    more.sendsOutput
      ? `- Add "${step.completionId}" to completedSteps and call workflow_next again with the context and the output above.`
      : `- Add "${step.completionId}" to completedSteps and call workflow_next again with the context.`,
  );
  parts.push(`## When done\n${done.join('\n')}`);
  return parts.join('\n\n');
}

/** What an answer adds around the step's own text (current format: follow-up, delegations, output, metrics). */
export interface StepGuidanceExtras {
  /** An assessment follow-up: shown first. */
  followup?: string;
  /** Sections placed after the guidance list. */
  sections?: string[];
  /** The step expects an output with the completing call. */
  sendsOutput?: boolean;
}

/** The guidance when the workflow has no step left. */
export function buildCompletionGuidance(workflow: Workflow, notes: readonly string[] = []): string {
  const parts = [`## Complete\nWorkflow '${workflow.name ?? workflow.id}' is complete: every step that applies is done.`];
  if (notes.length > 0) parts.push(`## Note\n${notes.map((n) => `- ${n}`).join('\n')}`);
  return parts.join('\n\n');
}

function describeLoop(loop: NonNullable<ResolvedStep['loop']>): string {
  const here = `loop '${loop.id}', iteration ${loop.iteration + 1}`;
  const item = loop.item !== undefined ? ` (item: ${typeof loop.item === 'string' ? loop.item : JSON.stringify(loop.item)})` : '';
  return loop.parent ? `${here}${item}, inside ${describeLoop(loop.parent)}` : `${here}${item}`;
}
