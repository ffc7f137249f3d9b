import { buildStepGuidance } from '../guidance';
import type { ResolvedStep } from '../step-resolution';
import type { Blocker } from './session-events';

/**
 * The guidance of a session step: the same role/task/guidance sections as workflow_next, but "When done" tells the
 * agent to call workflow_continue with its notes (the server keeps completedSteps and the context).
 */
export function buildSessionStepGuidance(step: ResolvedStep, notes: readonly string[] = []): string {
  const stateless = buildStepGuidance(step, notes);
  const cut = stateless.lastIndexOf('\n\n## When done\n');
  const body = cut >= 0 ? stateless.slice(0, cut) : stateless;
  const done: string[] = [];
  if (step.askForFiles) done.push('- Ask the user for any files you need before you start.');
  if (step.requireConfirmation) done.push('- Ask the user to confirm the result before you continue.');
  done.push('- Call workflow_continue with the continueToken and `output: {notesMarkdown}` saying what you did (and `context` with only the variables you changed).');
  if (step.validationCriteria !== undefined) done.push('- Your notes are checked against the step\'s criteria; a `blocked` answer says exactly what is missing.');
  return `${body}\n\n## When done\n${done.join('\n')}`;
}

/** The start of a blocked answer's guidance: what was wrong, what to do (the step's own guidance follows it). */
export function buildBlockedHeader(blockers: readonly Blocker[], exhausted: boolean, attempt: number, max: number): string {
  const lines = blockers.map((b) => `- ${b.message}${b.pointer && b.pointer !== '/notesMarkdown' ? ` (at ${b.pointer})` : ''}${b.expected ? ` (expected: ${typeof b.expected === 'string' ? b.expected : JSON.stringify(b.expected)})` : ''}`);
  return exhausted
    ? `## Blocked: attempts exhausted (${attempt} of ${max})\nStop and ask the person how to proceed: this step's output was refused ${attempt} times in a row. Show them these problems:\n${lines.join('\n')}\nA corrected output sent with the retryToken still advances the session.`
    : `## Blocked (attempt ${attempt} of ${max})\nThe output does not satisfy this step yet:\n${lines.join('\n')}\nFix it and call workflow_continue again with the retryToken.`;
}

/** The guidance of a blocked answer: what was wrong, then the step again. */
export function buildBlockedGuidance(step: ResolvedStep, blockers: readonly Blocker[], exhausted: boolean, attempt: number, max: number): string {
  return `${buildBlockedHeader(blockers, exhausted, attempt, max)}\n\n${buildSessionStepGuidance(step)}`;
}

/** The guidance when the session's workflow is complete. */
export function buildSessionCompleteGuidance(workflowName: string, summary: string): string {
  return `## Complete\nWorkflow '${workflowName}' is complete: every step that applies is done.\n\n## Summary\n${summary}`;
}
